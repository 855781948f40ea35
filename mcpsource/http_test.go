package mcpsource

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillsync/skillsync/desired/registry"
)

// A Streamable HTTP server is reached with the headers of its source, and an
// answer larger than MaxMessage is refused rather than read into memory.
func TestHTTPServer(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	huge := false
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if huge {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"x":"`))
			chunk := []byte(strings.Repeat("x", 1<<20))
			for range 17 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		sdk.ServeHTTP(w, r)
	}))
	defer ts.Close()
	s := Server{Name: "remote", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
	getenv := func(string) string { return "s3cret" }
	list := func() (Listing, error) {
		transport, err := s.Transport(getenv)
		if err != nil {
			t.Fatal(err)
		}
		return List(context.Background(), registry.MCPSource{Name: "remote"}, transport)
	}
	listing, err := list()
	if err != nil || len(listing.Tools) != 1 || listing.Tools[0].Name != "search" {
		t.Fatalf("listing %+v, %v", listing, err)
	}
	huge = true
	if _, err := list(); err == nil || !strings.Contains(err.Error(), "more than 16777216 bytes in one message") {
		t.Errorf("a 17 MiB answer: %v", err)
	}
}
