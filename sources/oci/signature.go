package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/signing"
)

// maxSignatures bounds the signatures of one artifact that are read.
const maxSignatures = 64

// Signature is one signature of an artifact: the digest of the referrer
// manifest that holds it, and its Sigstore bundle.
type Signature struct {
	Digest string
	Bundle []byte
}

// PushSignature attaches bundle, a Sigstore bundle signing the manifest
// manifestDigest of ref, to it as an OCI referrer, as cosign v3 attaches an
// image signature; the referrer's digest is returned.
func (c Cache) PushSignature(ctx context.Context, ref registry.OCIReference, manifestDigest string, bundle []byte) (string, error) {
	repo, err := c.repository(ref)
	if err != nil {
		return "", err
	}
	subject, err := repo.Resolve(ctx, manifestDigest)
	if err != nil {
		return "", fmt.Errorf("find the manifest %s of %s to sign: %w", manifestDigest, ref, explain(err, ref))
	}
	layer := ocispec.Descriptor{MediaType: signing.BundleMediaType, Digest: digest.FromBytes(bundle), Size: int64(len(bundle))}
	for _, blob := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{layer, bundle}, {ocispec.DescriptorEmptyJSON, ocispec.DescriptorEmptyJSON.Data}} {
		if ok, err := repo.Exists(ctx, blob.desc); err == nil && ok {
			continue
		}
		if err := repo.Push(ctx, blob.desc, bytes.NewReader(blob.data)); err != nil {
			return "", fmt.Errorf("push the signature of %s: %w", ref, explain(err, ref))
		}
	}
	m := ocispec.Manifest{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: signing.BundleMediaType,
		Config:       ocispec.DescriptorEmptyJSON,
		Layers:       []ocispec.Descriptor{layer},
		Subject:      &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations: map[string]string{
			signing.ContentAnnotation:   "dsse-envelope",
			signing.PredicateAnnotation: signing.PredicateType,
		},
	}
	m.SchemaVersion = 2
	data, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: signing.BundleMediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
	if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		return "", fmt.Errorf("push the signature of %s: %w", ref, explain(err, ref))
	}
	return desc.Digest.String(), nil
}

// Listing is what the registry lists as signatures of a manifest: those read,
// and, to say why none verifies, the referrers that could not be read and
// whether the listing was cut at maxSignatures.
type Listing struct {
	Signatures []Signature
	Unread     []string
	Truncated  bool
}

// Signatures are the signatures attached to the manifest manifestDigest of
// ref, read from the registry (at most maxSignatures); one that is not a
// Sigstore bundle about that manifest is left out, and one that cannot be read
// is noted, so that another can still verify.
func (c Cache) Signatures(ctx context.Context, ref registry.OCIReference, manifestDigest string) (Listing, error) {
	if c.Offline {
		return Listing{}, fmt.Errorf("list the signatures of %s: %w", ref, ErrOffline)
	}
	repo, err := c.repository(ref)
	if err != nil {
		return Listing{}, err
	}
	subject := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.Digest(manifestDigest)}
	var found []string
	var out Listing
	// The listing is not filtered by artifact type: where a registry lacks the
	// referrers API, cosign writes the fallback index with the empty config's
	// type for a bundle's; the referrer manifest itself says what it is.
	err = repo.Referrers(ctx, subject, "", func(page []ocispec.Descriptor) error {
		for _, d := range page {
			if !maybeSignature(d.ArtifactType) {
				continue
			}
			if len(found) == maxSignatures {
				out.Truncated = true
				return errTooManySignatures
			}
			found = append(found, d.Digest.String())
		}
		return nil
	})
	if err != nil && !errors.Is(err, errTooManySignatures) {
		return Listing{}, fmt.Errorf("list the signatures of %s: %w", ref, explain(err, ref))
	}
	for _, d := range found {
		s, err := c.Signature(ctx, ref, manifestDigest, d)
		switch {
		case errors.Is(err, errNotASignature):
		case err != nil:
			out.Unread = append(out.Unread, fmt.Sprintf("%s: %v", d, err))
		default:
			out.Signatures = append(out.Signatures, s)
		}
	}
	return out, nil
}

// maybeSignature tells whether a referrer listed with artifactType may hold a
// signature.
func maybeSignature(artifactType string) bool {
	switch artifactType {
	case signing.BundleMediaType, ocispec.MediaTypeEmptyJSON, "":
		return true
	}
	return false
}

var (
	errTooManySignatures = errors.New("too many signatures")
	errNotASignature     = errors.New("not a signature")
)

// Signature is the signature whose referrer manifest is d, of the manifest
// manifestDigest of ref: from the cache when it holds it, else from the
// registry.
func (c Cache) Signature(ctx context.Context, ref registry.OCIReference, manifestDigest, d string) (Signature, error) {
	data, err := c.Manifest(ctx, ref, d)
	if err != nil {
		return Signature{}, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Signature{}, fmt.Errorf("%w: %s is not JSON", errNotASignature, d)
	}
	switch {
	case m.Subject == nil || m.Subject.Digest.String() != manifestDigest:
		return Signature{}, fmt.Errorf("%w: %s signs another manifest", errNotASignature, d)
	case len(m.Layers) != 1 || m.Layers[0].MediaType != signing.BundleMediaType || !strings.HasPrefix(m.Layers[0].Digest.String(), "sha256:"):
		return Signature{}, fmt.Errorf("%w: %s holds no one Sigstore bundle", errNotASignature, d)
	case m.Layers[0].Size > signing.MaxBundleSize:
		return Signature{}, fmt.Errorf("%w: the bundle of %s is %d bytes; at most %d are read", errNotASignature, d, m.Layers[0].Size, signing.MaxBundleSize)
	}
	bundle, err := c.Layer(ctx, ref, m.Layers[0])
	if err != nil {
		return Signature{}, err
	}
	return Signature{Digest: d, Bundle: bundle}, nil
}
