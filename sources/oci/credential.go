package oci

import (
	"context"
	"fmt"
	"mime"
	"net"
	"net/http"

	"golang.org/x/net/publicsuffix"
	"oras.land/oras-go/v2/registry/remote/auth"
)

// quiet is credential with its errors replaced by one that names the registry
// alone: oras-go's say what it could not decode, which is the secret.
func quiet(credential auth.CredentialFunc) auth.CredentialFunc {
	return func(ctx context.Context, hostport string) (auth.Credential, error) {
		c, err := credential(ctx, hostport)
		if err != nil {
			return auth.EmptyCredential, fmt.Errorf("the Docker configuration's credential for %s cannot be read; log in again with docker login or oras login", hostport)
		}
		return c, nil
	}
}

// guard sends a request that carries a credential only to the registry's
// own site: its host, or a host of the same registrable domain (Docker Hub's
// registry-1.docker.io sends clients to auth.docker.io for tokens). A registry
// that names a token service elsewhere gets an error instead of the
// credential stored for it.
type guard struct {
	base     http.RoundTripper
	registry string // the registry's host, without its port
}

func (g guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if mayCarryCredential(req) && !sameSite(g.registry, req.URL.Hostname()) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("the registry %s asks for its credential to be sent to %s, which is not its own site; refused", g.registry, req.URL.Hostname())
	}
	return g.base.RoundTrip(req)
}

// mayCarryCredential tells whether req can hold a credential: in its
// Authorization header, or in a form, where an OAuth2 token request posts a
// refresh token (what docker login stores as an identity token) or a user's
// password (RFC 6749). A blob's bytes, or a redirect to a download site, hold
// none.
func mayCarryCredential(req *http.Request) bool {
	if req.Header.Get("Authorization") != "" {
		return true
	}
	media, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	return req.Body != nil && req.Body != http.NoBody && (media == "application/x-www-form-urlencoded" || media == "multipart/form-data")
}

// sameSite tells whether host is registry, or shares its registrable domain
// (its public suffix and one label more). An IP address is its own site.
func sameSite(registry, host string) bool {
	if registry == host {
		return true
	}
	if net.ParseIP(registry) != nil || net.ParseIP(host) != nil {
		return false
	}
	a, errA := publicsuffix.EffectiveTLDPlusOne(registry)
	b, errB := publicsuffix.EffectiveTLDPlusOne(host)
	return errA == nil && errB == nil && a == b
}
