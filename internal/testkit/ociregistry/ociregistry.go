package ociregistry

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Registry is a running registry.
type Registry struct {
	// Host is its host:port, 127.0.0.1 and a free port: what a reference
	// starts with.
	Host     string
	Requests atomic.Int64

	srv *httptest.Server

	mu         sync.Mutex
	user, pass string
	// authorized records every Authorization header sent, for tests that
	// check where a credential went.
	authorized []string
	// forged are bytes served for a digest in place of the blob or manifest
	// it names.
	forged map[string][]byte
}

// Start serves an empty registry until Close.
func Start() *Registry {
	r := &Registry{}
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.Requests.Add(1)
		r.mu.Lock()
		user, pass := r.user, r.pass
		if h := req.Header.Get("Authorization"); h != "" {
			r.authorized = append(r.authorized, h)
		}
		forged, isForged := r.forged[path.Base(req.URL.Path)]
		r.mu.Unlock()
		if isForged && req.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Write(forged)
			return
		}
		if user != "" {
			u, p, ok := req.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
				return
			}
		}
		inner.ServeHTTP(w, req)
	}))
	r.Host = strings.TrimPrefix(r.srv.URL, "http://")
	return r
}

// RequireLogin makes every request need user and pass, by basic auth.
func (r *Registry) RequireLogin(user, pass string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.user, r.pass = user, pass
}

// Authorizations are the Authorization headers the registry was sent.
func (r *Registry) Authorizations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.authorized...)
}

// Forge serves data for every GET of the manifest or blob of digest d, as a
// compromised registry or a proxy between could.
func (r *Registry) Forge(d string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.forged == nil {
		r.forged = map[string][]byte{}
	}
	r.forged[d] = data
}

// Close stops the registry.
func (r *Registry) Close() { r.srv.Close() }
