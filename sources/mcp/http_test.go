package mcp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/mcp/skillserver"
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
	getenv := func(string) (string, bool) { return "s3cret", true }
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

// A header goes to the origin of the url alone: a redirect within it is
// followed, with the header; one to another host is refused before anything is
// sent there.
func TestAHeaderGoesToItsOriginAlone(t *testing.T) {
	sdk := searchServer()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		if r.Header.Get("Authorization") != "Bearer s3cret-token" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		sdk.ServeHTTP(w, r)
	}))
	defer origin.Close()
	list := func(url string) (Listing, error) {
		s := Server{Name: "remote", URL: url, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
		transport, err := s.Transport(func(string) (string, bool) { return "s3cret-token", true })
		if err != nil {
			t.Fatal(err)
		}
		return List(context.Background(), registry.MCPSource{Name: "remote"}, transport)
	}
	if listing, err := list(origin.URL + "/old"); err != nil || len(listing.Tools) != 1 {
		t.Fatalf("a redirect within the origin: %+v, %v", listing, err)
	}

	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	var reached atomic.Int32
	other := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		sdk.ServeHTTP(w, r)
	})}}
	other.Start()
	defer other.Close()
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer away.Close()
	_, err = list(away.URL + "/mcp")
	if err == nil || !strings.Contains(err.Error(), "redirected to "+other.URL+"; skillsync follows no redirect to another host") {
		t.Errorf("a redirect to another host: %v", err)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the other host was sent %d requests", n)
	}
}

func searchServer() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
}

// Following a Streamable HTTP server that publishes skills, the session hears
// the server's notifications: a tool it adds, and a skill it publishes, are
// recorded.
func TestFollowingAnHTTPServerThatPublishesSkills(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, &mcp.ServerOptions{Capabilities: skillserver.Capabilities()})
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	server.AddTool(&mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}}, noop)
	skills := map[string]map[string]string{"git-workflow": {"SKILL.md": gitWorkflow}}
	pub := skillserver.Publish(server, *honest(t, skills))
	ts := httptest.NewServer(pub.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	defer ts.Close()

	snapshots := make(chan string, 100)
	f := Follower{
		Source: registry.MCPSource{Name: "remote", PublishedSkills: &registry.MCPPublishedSkills{}},
		Server: Server{Name: "remote", URL: ts.URL}, Path: "registry/mcp-remote.yaml",
		Lookup:  func(string) (string, bool) { return "", false },
		Write:   func(b []byte) error { snapshots <- string(b); return nil },
		Report:  func(err error) { t.Logf("report: %v", err) },
		Timeout: 10 * time.Second, Backoff: time.Second, MaxBackoff: time.Second,
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx)
	await := func(text string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case s := <-snapshots:
				if strings.Contains(s, text) {
					return
				}
			case <-deadline:
				t.Fatalf("no snapshot holds %q", text)
			}
		}
	}
	await("skill://git-workflow/SKILL.md")
	server.AddTool(&mcp.Tool{Name: "added", InputSchema: map[string]any{"type": "object"}}, noop)
	await("remote.added")
	skills["release"] = map[string]string{"SKILL.md": "---\nname: release\ndescription: Cut a release\n---\nTag.\n"}
	pub.Set(*honest(t, skills))
	await("skill://release/SKILL.md")
}

// A published skill that publishedSkills leaves out, whose SKILL.md the server
// refuses with the token in its error, is left out saying why, with the token
// redacted: what a refresh prints of it holds no secret either.
func TestARefusedSkillLeftOutSaysNoSecret(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, &mcp.ServerOptions{Capabilities: skillserver.Capabilities()})
	server.AddTool(&mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	pub := skillserver.Publish(server, *honest(t, map[string]map[string]string{
		"git-workflow": {"SKILL.md": gitWorkflow},
		"internal":     {"SKILL.md": "---\nname: internal\ndescription: Not for you\n---\nx\n"},
	}))
	server.AddResource(&mcp.Resource{URI: "skill://internal/SKILL.md", Name: "internal"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, fmt.Errorf("not for %s", req.Extra.Header.Get("Authorization"))
		})
	ts := httptest.NewServer(pub.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	defer ts.Close()
	s := Server{Name: "remote", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
	transport, err := s.Transport(func(string) (string, bool) { return "s3cret-token", true })
	if err != nil {
		t.Fatal(err)
	}
	src := registry.MCPSource{Name: "remote", PublishedSkills: &registry.MCPPublishedSkills{Exclude: []string{"internal"}}}
	listing, err := List(context.Background(), src, transport)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Snapshot(src, listing, "registry/mcp-remote.yaml")
	if err != nil {
		t.Fatal(err)
	}
	skipped := strings.Join(r.Skipped, "\n")
	if !strings.Contains(skipped, "skill internal: it was not recorded: resources/read skill://internal/SKILL.md") ||
		!strings.Contains(skipped, "[redacted ${TOKEN}]") || strings.Contains(skipped+string(r.Snapshot), "s3cret") {
		t.Errorf("left out:\n%s", skipped)
	}
}
