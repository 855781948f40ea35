package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillsync/skillsync/sources/mcp/skillserver"
)

// mcpHTTPServer is the command mcphttpserver of the scripts: a Streamable HTTP
// MCP server, built with the SDK, on ADDR (127.0.0.1:PORT), serving the tools of
// TOOLS.json as mcptestserver does, and publishing the skills under SKILLS-DIR
// when given one. GET /up answers 200 once it listens. It appends the method,
// path and Authorization header of each request it gets to LOG, and behaves as
// MODE says:
//
//	serve     serves
//	echo      serves, and lists a tool whose title is the Authorization header
//	reject    answers every request with a JSON-RPC error whose message holds the
//	          Authorization header
//	redirect  answers every POST 307 to a server like serve on 127.0.0.2, which
//	          logs to LOG.second
//
//	mcphttpserver MODE ADDR TOOLS.json LOG [SKILLS-DIR]
func mcpHTTPServer() {
	if len(os.Args) != 5 && len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: mcphttpserver MODE ADDR TOOLS.json LOG [SKILLS-DIR]")
		os.Exit(2)
	}
	mode, addr, tools, log := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	handler := mcpHandler(mode, tools, os.Args[5:])
	switch mode {
	case "reject":
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			msg, err := jsonrpc.DecodeMessage(body)
			req, ok := msg.(*jsonrpc.Request)
			if err != nil || !ok || !req.IsCall() {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32001, Message: "the token " + r.Header.Get("Authorization") + " is not valid here"}})
			w.Header().Set("Content-Type", "application/json")
			w.Write(data)
		})
	case "redirect":
		ln, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go http.Serve(ln, logged(log+".second", handler))
		elsewhere := "http://" + ln.Addr().String()
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere+r.URL.Path, http.StatusTemporaryRedirect)
		})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /up", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "up") })
	mux.Handle("/", logged(log, handler))
	if err := http.ListenAndServe(addr, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// mcpHandler is the SDK's handler of a server serving the tools of file, and
// publishing the skills under skillsDir[0] when given.
func mcpHandler(mode, file string, skillsDir []string) http.Handler {
	var opts *mcp.ServerOptions
	if len(skillsDir) > 0 {
		opts = &mcp.ServerOptions{Capabilities: skillserver.Capabilities()}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "mcphttpserver", Version: "1"}, opts)
	serve := syncTools(server, file)
	serve()
	go func() {
		for range time.Tick(50 * time.Millisecond) {
			serve()
		}
	}()
	var handler http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	if len(skillsDir) > 0 {
		publisher := skillserver.Publish(server, skillserver.Catalog{})
		published := publishSkills(publisher, skillsDir[0], "")
		go func() {
			for range time.Tick(50 * time.Millisecond) {
				published = publishSkills(publisher, skillsDir[0], published)
			}
		}()
		handler = publisher.Handler(handler)
	}
	if mode != "echo" {
		return handler
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth := r.Header.Get("Authorization"); auth != "" {
			server.AddTool(&mcp.Tool{Name: "whoami", Title: "Signed in as " + auth, InputSchema: map[string]any{"type": "object"}},
				func(_ context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
		}
		handler.ServeHTTP(w, r)
	})
}

var logMu sync.Mutex

// logged appends each request's method, path and Authorization header to file.
func logged(file string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logMu.Lock()
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s Authorization=%q\n", r.Method, r.URL.Path, r.Header.Get("Authorization"))
			f.Close()
		}
		logMu.Unlock()
		next.ServeHTTP(w, r)
	})
}
