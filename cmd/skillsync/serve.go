package main

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/watch"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/serve"
	"github.com/skillsync/skillsync/sources/mcp/skillserver"
	"github.com/skillsync/skillsync/sources/wellknown"
)

func newServeCommand(g *globals) *cobra.Command {
	var target, httpAddr, token string
	var wellKnown bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the workspace's skills for one client over MCP's skills extension; write nothing",
		Long: "Serve the skills the workspace gives one target directory (--target) to agents that have\n" +
			"no workspace of their own, through the MCP skills extension: skills/list and skills/get,\n" +
			"and each file of a skill as a skill:// resource, as skillsync would write it there. Over\n" +
			"stdio by default, over Streamable HTTP at /mcp with --http. It follows the workspace as\n" +
			"the watcher does, and a change of the skills is announced to connected clients as a change\n" +
			"of the resource list. It reads the workspace and never writes it (docs/serve.md).\n" +
			"Over HTTP on an address other than loopback, --token names the bearer token clients send,\n" +
			"as ${VAR}, read from the environment.\n" +
			"Exit codes: 2 invalid input at the start, 4 any other failure.",
		Example: "  skillsync serve --target claude-code                  over stdio, for an MCP client to start\n" +
			"  skillsync serve --http 127.0.0.1:8765                 over Streamable HTTP on loopback\n" +
			"  skillsync serve --http :8765 --token '${SKILLS_TOKEN}'   on every address, behind a token",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bearer, err := serveToken(httpAddr, token)
			if err != nil {
				return err
			}
			if wellKnown && httpAddr == "" {
				return usageError("--well-known serves a site over HTTP: give --http ADDR too")
			}
			root, err := g.root()
			if err != nil {
				return err
			}
			req := g.request(g.readOnly(), root, true)
			in, err := controller.LoadInputs(req)
			if err != nil {
				return inputError(g.stderr, err)
			}
			cat, err := serve.Catalog(in.Registry, in.Profile, target)
			if err != nil {
				return &exitError{exitInvalid, err}
			}
			log := g.logger()
			server := mcp.NewServer(&mcp.Implementation{Name: "skillsync", Version: readBuildInfo().Version},
				&mcp.ServerOptions{Capabilities: skillserver.Capabilities()})
			pub := skillserver.Publish(server, cat)
			var site *siteFiles
			if wellKnown {
				if site, err = publishedSite(g, in.Registry); err != nil {
					return err
				}
			}

			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			follow := func(out controller.Outcome) {
				if !out.Planned {
					return // invalid input or a failure: what was served stays
				}
				cat, err := serve.Catalog(out.Registry, out.Profile, target)
				if err != nil {
					log.Warn("cannot serve the workspace's skills; serving those before", "err", err)
					return
				}
				pub.Set(cat)
				if site != nil {
					if err := site.update(g, out.Registry); err != nil {
						log.Warn("cannot serve the workspace's skill directories as a site; serving those before", "err", err)
					}
				}
			}
			watching := make(chan error, 1)
			go func() {
				watching <- watch.Run(ctx, watch.Options{Request: req, Debounce: 100 * time.Millisecond, MaxWait: time.Second,
					Resync: 5 * time.Minute, Health: &watch.Tracker{}, Log: slog.New(warnings{log.Handler()}), OnPass: follow})
			}()
			if httpAddr == "" {
				log.Info("serving skills over stdio", "target", target, "skills", len(cat.Entries))
				err = server.Run(ctx, pub.Transport(&mcp.StdioTransport{}))
			} else {
				err = serveHTTP(ctx, log, httpAddr, bearer, pub.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)), site)
			}
			stop()
			if werr := <-watching; err == nil {
				err = werr
			}
			if err != nil && ctx.Err() == nil {
				return &exitError{exitFailure, err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "target", "claude-code", "the target directory whose skills to serve, by its name in spec.targets")
	f.StringVar(&httpAddr, "http", "", "serve over Streamable HTTP at ADDR/mcp instead of stdio")
	f.StringVar(&token, "token", "", "with --http: the bearer token clients must send, as ${VAR} read from the environment")
	f.BoolVar(&wellKnown, "well-known", false, "with --http: also serve the workspace's skill directories as a discovery index at /"+wellknown.IndexPath+", as publish --well-known writes it")
	return cmd
}

// tokenRef is how --token names the variable that holds the token: a token
// itself never goes on a command line, where ps shows it.
var tokenRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// serveToken is the bearer token HTTP clients must send: none on loopback
// without --token, and required anywhere else.
func serveToken(addr, ref string) (string, error) {
	if ref == "" {
		if addr != "" && !loopback(addr) {
			return "", usageError("--http %s listens beyond this machine: give --token '${VAR}' naming the bearer token clients must send, or listen on 127.0.0.1", addr)
		}
		return "", nil
	}
	if addr == "" {
		return "", usageError("--token goes with --http: over stdio the client that starts skillsync is the only one")
	}
	m := tokenRef.FindStringSubmatch(ref)
	if m == nil {
		return "", usageError("--token takes ${VAR}, the name of an environment variable holding the token, never the token itself")
	}
	value := os.Getenv(m[1])
	if value == "" {
		return "", usageError("--token names %s, which is not set or empty", m[1])
	}
	return value, nil
}

// loopback tells whether addr listens on this machine alone.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHTTP serves the skills at addr/mcp until ctx ends, every request
// carrying the bearer token when there is one.
// With site, it serves the discovery index and its artifacts too.
func serveHTTP(ctx context.Context, log *slog.Logger, addr, bearer string, skills http.Handler, site *siteFiles) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireBearer(bearer, skills))
	if site != nil {
		mux.Handle("GET /"+path.Dir(wellknown.IndexPath)+"/", requireBearer(bearer, site))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	log.Info("serving skills over Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp")
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// requireBearer answers 401 to a request without the token, when there is one.
func requireBearer(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// warnings passes on the records of level Warn and above: serve's passes plan
// and write nothing, and their "reconcile finished" would read as if a run
// had converged the workspace. Invalid input is still said, at its line.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnings{w.Handler.WithAttrs(attrs)}
}

func (w warnings) WithGroup(name string) slog.Handler { return warnings{w.Handler.WithGroup(name)} }

// siteFiles is the discovery index of the workspace's skill directories and
// their artifacts, by path, as publish --well-known writes them, served from
// memory and replaced whole when the skills change.
type siteFiles struct {
	files atomic.Pointer[map[string][]byte]
}

// publishedSite is the site of reg's skill directories.
func publishedSite(g *globals, reg *registry.Registry) (*siteFiles, error) {
	s := &siteFiles{}
	if err := s.update(g, reg); err != nil {
		return nil, &exitError{exitFailure, err}
	}
	return s, nil
}

func (s *siteFiles) update(g *globals, reg *registry.Registry) error {
	skills, err := publishable(g, reg, nil)
	if err != nil {
		return err
	}
	files, err := wellknown.Artifacts(skills)
	if err != nil {
		return err
	}
	s.files.Store(&files)
	return nil
}

func (s *siteFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/")
	data, ok := (*s.files.Load())[p]
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch {
	case p == wellknown.IndexPath:
		w.Header().Set("Content-Type", "application/json")
	case strings.HasSuffix(p, ".tar.gz"):
		w.Header().Set("Content-Type", "application/gzip")
	default:
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	}
	w.Write(data)
}
