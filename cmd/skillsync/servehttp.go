package main

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/wellknown"
)

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
	var handler http.Handler = http.NewCrossOriginProtection().Handler(mux)
	if loopback(addr) {
		handler = loopbackHostOnly(handler)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	// No read or write timeout: a client's stream of notifications stays open
	// as long as it listens. A connection that stays open doing nothing
	// between requests is let go.
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
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

// loopbackHostOnly answers 403 to a request that names a host other than this
// machine: a web page whose name an attacker points at 127.0.0.1 (DNS
// rebinding) reaches a server bound to loopback, but its requests name the
// attacker's host. The SDK checks this for its own requests; this covers
// every request, the extension's and the site's too.
func loopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if ip := net.ParseIP(strings.Trim(host, "[]")); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "this server answers only requests for localhost", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireBearer answers 401 to a request without the token, when there is one.
func requireBearer(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

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
