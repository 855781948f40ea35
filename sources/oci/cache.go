package oci

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/blobs"
)

// Timeout bounds reading or pushing one artifact.
const Timeout = 5 * time.Minute

// ErrOffline is what reading the network returns offline.
var ErrOffline = errors.New("offline")

var errNoCache = errors.New("there is no user cache directory to keep sources in (set HOME, or XDG_CACHE_HOME on Linux)")

// Cache reads artifacts from registries, keeping every manifest and layer it
// reads under Dir (the user's cache directory; empty when there is none, and
// then nothing is fetched or read), so that every workspace of the user shares
// them and a run whose blobs are there makes no request.
type Cache struct {
	Dir string
	// Offline forbids the network: a blob the cache lacks is an error.
	Offline bool
	// Client makes the requests; nil is one that takes proxies from the
	// environment.
	Client *http.Client
	// Credential gives the credential for a registry; nil reads the Docker
	// configuration ($DOCKER_CONFIG, or ~/.docker/config.json) and its
	// credential helpers.
	Credential auth.CredentialFunc
	// Uncached reads blobs from the registry without a cache, keeping none:
	// what a push reads of what is there already.
	Uncached bool
}

// repository is the repository of ref, reached with c's client and the
// credential stored for ref's registry alone.
func (c Cache) repository(ref registry.OCIReference) (*remote.Repository, error) {
	repo, err := remote.NewRepository(ref.Registry + "/" + ref.Repository)
	if err != nil {
		return nil, err
	}
	repo.PlainHTTP = ref.PlainHTTP
	credential := c.Credential
	if credential == nil {
		store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
		if err != nil {
			return nil, fmt.Errorf("read the Docker configuration for credentials: %w", err)
		}
		credential = credentials.Credential(store)
	}
	client := http.Client{Transport: http.DefaultTransport}
	if c.Client != nil {
		client = *c.Client
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	host := ref.Registry
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	client.Transport = guard{base: base, registry: strings.Trim(host, "[]")}
	repo.Client = &auth.Client{Client: &client, Cache: auth.NewCache(), Credential: quiet(credential)}
	return repo, nil
}

// Resolve is the digest and the bytes of the manifest ref names now, from the
// registry; the manifest is kept in the cache.
func (c Cache) Resolve(ctx context.Context, ref registry.OCIReference) (string, []byte, error) {
	if c.Offline {
		return "", nil, fmt.Errorf("resolve %s: %w", ref, ErrOffline)
	}
	if c.Dir == "" {
		return "", nil, errNoCache
	}
	repo, err := c.repository(ref)
	if err != nil {
		return "", nil, err
	}
	desc, rc, err := repo.FetchReference(ctx, ref.Reference)
	if err != nil {
		return "", nil, fmt.Errorf("resolve %s: %w", ref, explain(err, ref))
	}
	defer rc.Close()
	if desc.Size > maxManifestSize {
		return "", nil, fmt.Errorf("the manifest of %s is %d bytes; at most %d are read", ref, desc.Size, maxManifestSize)
	}
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		return "", nil, fmt.Errorf("read the manifest of %s: %w", ref, err)
	}
	if desc.Digest.Algorithm() != digest.SHA256 {
		return "", nil, fmt.Errorf("the manifest of %s is named by a %s digest; only sha256 is read", ref, desc.Digest.Algorithm())
	}
	c.keep(data)
	return desc.Digest.String(), data, nil
}

// Manifest is the manifest of ref whose digest is d, from the cache when it
// holds it, else from the registry.
func (c Cache) Manifest(ctx context.Context, ref registry.OCIReference, d string) ([]byte, error) {
	return c.blob(ctx, ref, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.Digest(d), Size: -1}, maxManifestSize)
}

// Layer is the layer desc of ref, from the cache when it holds it, else from
// the registry.
func (c Cache) Layer(ctx context.Context, ref registry.OCIReference, desc ocispec.Descriptor) ([]byte, error) {
	return c.blob(ctx, ref, desc, desc.Size)
}

// blob is the blob desc names (its size -1 when unknown, for a manifest
// named by its digest alone), checked against its digest wherever it came
// from.
func (c Cache) blob(ctx context.Context, ref registry.OCIReference, desc ocispec.Descriptor, limit int64) ([]byte, error) {
	if c.Dir == "" && !c.Uncached {
		return nil, errNoCache
	}
	d := desc.Digest.String()
	if !blobs.ValidDigest(d) {
		return nil, fmt.Errorf("%q is not a sha256: digest", d)
	}
	if c.Dir != "" {
		if data, ok := (blobs.Store{Dir: c.Dir}).Get(d, limit); ok {
			return data, nil
		}
	}
	if c.Offline {
		return nil, fmt.Errorf("%s of %s is not in the cache (%s): %w; run once with the network", d, ref, c.Dir, ErrOffline)
	}
	repo, err := c.repository(ref)
	if err != nil {
		return nil, err
	}
	var data []byte
	if desc.Size < 0 {
		got, rc, err := repo.FetchReference(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("fetch %s of %s: %w", d, ref, explain(err, ref))
		}
		defer rc.Close()
		if got.Size > limit {
			return nil, fmt.Errorf("%s of %s is %d bytes; at most %d are read", d, ref, got.Size, limit)
		}
		desc.Size = got.Size
		data, err = content.ReadAll(rc, desc)
		if err != nil {
			return nil, fmt.Errorf("read %s of %s: %w", d, ref, err)
		}
	} else {
		rc, err := repo.Blobs().Fetch(ctx, desc)
		if err != nil {
			return nil, fmt.Errorf("fetch %s of %s: %w", d, ref, explain(err, ref))
		}
		defer rc.Close()
		if data, err = content.ReadAll(rc, desc); err != nil {
			return nil, fmt.Errorf("read %s of %s: %w", d, ref, err)
		}
	}
	if got := blobs.Digest(data); got != d {
		return nil, fmt.Errorf("%s of %s holds %s: it was tampered with", d, ref, got)
	}
	c.keep(data)
	return data, nil
}

// keep keeps data, fetched and checked, in the cache if it can: a cache that
// cannot take it (a full disk, a read-only directory, a blob another process
// holds open on Windows) costs the next run a fetch, and fails nothing now.
func (c Cache) keep(data []byte) {
	if c.Dir != "" {
		_ = blobs.Store{Dir: c.Dir}.Put(data)
	}
}

// Tags are the tags of ref's repository.
func (c Cache) Tags(ctx context.Context, ref registry.OCIReference) ([]string, error) {
	if c.Offline {
		return nil, fmt.Errorf("list the tags of %s: %w", ref, ErrOffline)
	}
	repo, err := c.repository(ref)
	if err != nil {
		return nil, err
	}
	var tags []string
	err = repo.Tags(ctx, "", func(page []string) error {
		tags = append(tags, page...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the tags of %s: %w", ref, explain(err, ref))
	}
	return tags, nil
}

// explain adds to err what to do when it is a registry's asking for a
// credential that the Docker configuration does not hold.
func explain(err error, ref registry.OCIReference) error {
	if errors.Is(err, auth.ErrBasicCredentialNotFound) {
		return fmt.Errorf("%w: no credential for %s; log in with docker login or oras login", err, ref.Registry)
	}
	return err
}
