package wellknown

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/archive"
	"github.com/skillsync/skillsync/sources/blobs"
)

// Cache keeps the artifacts of discovery indexes by their digest under Dir
// (the user's cache directory; empty when there is none, and then nothing is
// fetched or read), so that every workspace of the user shares them and a run
// whose artifacts are there makes no request.
type Cache struct {
	Dir string
	// Offline forbids the network: an artifact the cache lacks is an error.
	Offline bool
	// Client makes the requests; nil is one that takes proxies from the
	// environment and follows redirects only to URLs an index may name.
	Client *http.Client
}

var errNoCache = errors.New("there is no user cache directory to keep sources in (set HOME, or XDG_CACHE_HOME on Linux)")

// client is c.Client, or the default one.
func (c Cache) client() *http.Client {
	if c.Client != nil {
		return c.Client
	}
	return &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("more than 10 redirects")
		}
		// A site read over https is not let to point at plain http, on this
		// machine or elsewhere.
		if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("a redirect from https:// to %s", req.URL.Scheme+"://")
		}
		return registry.CheckArtifactURL(req.URL.String())
	}}
}

// ReadIndex reads the index at indexURL; see ReadIndex.
func (c Cache) ReadIndex(ctx context.Context, indexURL string) (Index, string, error) {
	if c.Offline {
		return Index{}, "", fmt.Errorf("read the index %s: %w", registry.RedactRemote(indexURL), ErrOffline)
	}
	return ReadIndex(ctx, c.client(), indexURL)
}

// Artifact is the bytes of a, from the cache when it holds them (checked
// against a's digest at every read), else fetched, checked and kept.
func (c Cache) Artifact(ctx context.Context, a registry.Artifact) ([]byte, error) {
	if c.Dir == "" {
		return nil, errNoCache
	}
	if !blobs.ValidDigest(a.Digest) {
		return nil, fmt.Errorf("artifact %s: %q is not a sha256: digest", registry.RedactRemote(a.URL), a.Digest)
	}
	if err := registry.CheckArtifactURL(a.URL); err != nil {
		return nil, err
	}
	limit := int64(maxSkillMDSize)
	if a.Type == registry.ArtifactArchive {
		limit = archive.MaxSize
	}
	store := blobs.Store{Dir: c.Dir}
	if data, ok := store.Get(a.Digest, limit); ok {
		return data, nil
	}
	if c.Offline {
		return nil, fmt.Errorf("artifact %s (%s) is not in the cache (%s): %w; run once with the network", registry.RedactRemote(a.URL), a.Digest, c.Dir, ErrOffline)
	}
	data, err := fetch(ctx, c.client(), a.URL, limit)
	if err != nil {
		return nil, err
	}
	if got := blobs.Digest(data); got != a.Digest {
		return nil, fmt.Errorf("%s is %s, not %s as the index said: it changed since, or was tampered with", registry.RedactRemote(a.URL), got, a.Digest)
	}
	// A cache that cannot take the artifact costs the next run a fetch, and
	// fails nothing now.
	_ = store.Put(data)
	return data, nil
}
