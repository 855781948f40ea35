package mcp

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// originClient is the HTTP client of the server at u: it sets headers on
// each request to the endpoint's origin (scheme, host and port) and on no other,
// and follows a redirect within that origin only. A server that redirects
// elsewhere is refused rather than followed: Go drops a header it sets itself on
// such a redirect, but skillsync sets them on every request, and a credential
// goes only where it was configured to go.
func originClient(u *url.URL, headers map[string]string) *http.Client {
	origin := originOf(u)
	return &http.Client{
		Transport: withHeaders{origin, headers, http.DefaultTransport},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			switch {
			case originOf(req.URL) != origin:
				return fmt.Errorf("the server at %s redirected to %s; skillsync follows no redirect to another host", origin, originOf(req.URL))
			case len(via) >= 10:
				return fmt.Errorf("the server at %s redirected %d times", origin, len(via))
			}
			return nil
		},
	}
}

// originOf is the origin of u, scheme://host:port with the port the scheme
// implies written out, so that two spellings of one origin are equal.
func originOf(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// withHeaders sets the configured headers on a request to origin, and bounds
// each JSON answer at MaxMessage.
type withHeaders struct {
	origin  string
	headers map[string]string
	next    http.RoundTripper
}

func (h withHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	if originOf(req.URL) == h.origin {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.next.RoundTrip(req)
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		resp.Body = &boundedBody{resp.Body, MaxMessage}
	}
	return resp, err
}

// MaxMessage bounds one message of a server, over HTTP as the SDK bounds a line
// over stdio: a larger one is refused before it is read whole.
const MaxMessage = mcp.DefaultMaxLineLength

// boundedBody fails a read past its bound, where the SDK would read on into memory.
type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the server answered with more than %d bytes in one message", MaxMessage)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
