package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/archive"
)

// Pushed is what Push did: the manifest's digest, how many layers the
// registry lacked and were sent, and the digest of the signature attached.
type Pushed struct {
	Digest    string
	Layers    int
	Sent      int
	Signature string
}

// Signer signs what Push pushes.
type Signer struct {
	// Sign signs a manifest's digest: a Sigstore bundle.
	Sign func(manifestDigest string) ([]byte, error)
	// Signs tells whether bundle, attached already, is a signature of the
	// manifest by the same key: pushing the same skills again then adds no
	// signature, so that republishing does not pile them up.
	Signs func(bundle []byte, manifestDigest string) bool
}

// Document is a registry file to push: its path in the workspace, and its
// bytes.
type Document struct {
	Path string
	Data []byte
}

// Push pushes skills and documents to ref as one artifact (a layer a skill, in
// name order, then a layer a registry file, in path order) and tags its
// manifest with ref's tag. A layer the registry has already is not sent again,
// and the same skills and files give the same manifest. With a signer, the
// manifest's signature is attached (unless one by the same key is) before the
// tag moves to it, so that the tag never names the artifact unsigned.
func (c Cache) Push(ctx context.Context, ref registry.OCIReference, skills []archive.SkillDir, documents []Document, signer *Signer) (Pushed, error) {
	if strings.HasPrefix(ref.Reference, "sha256:") {
		return Pushed{}, fmt.Errorf("%s names a digest; push to a tag", ref)
	}
	if len(skills)+len(documents) == 0 {
		return Pushed{}, fmt.Errorf("nothing to push to %s: no skill directory and no registry file", ref)
	}
	repo, err := c.repository(ref)
	if err != nil {
		return Pushed{}, err
	}
	if err := checkTag(ctx, repo, ref); err != nil {
		return Pushed{}, err
	}
	skills = slices.Clone(skills)
	slices.SortFunc(skills, func(a, b archive.SkillDir) int { return strings.Compare(a.Name, b.Name) })
	layers := make([]Layer, len(skills))
	blobs := make([][]byte, len(skills))
	for i, s := range skills {
		if layers[i], blobs[i], err = skillLayer(s.Name, s.All()); err != nil {
			return Pushed{}, fmt.Errorf("skill %s: %w", s.Name, err)
		}
	}
	documents = slices.Clone(documents)
	slices.SortFunc(documents, func(a, b Document) int { return strings.Compare(a.Path, b.Path) })
	for _, d := range documents {
		layers, blobs = append(layers, documentLayer(d.Path, d.Data)), append(blobs, d.Data)
	}
	var sent atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetches)
	push := func(desc ocispec.Descriptor, data []byte, count bool) error {
		if ok, err := repo.Exists(gctx, desc); err == nil && ok {
			return nil
		}
		if err := repo.Push(gctx, desc, bytes.NewReader(data)); err != nil {
			return fmt.Errorf("push %s to %s: %w", desc.Digest, ref, explain(err, ref))
		}
		if count {
			sent.Add(1)
		}
		return nil
	}
	for i := range layers {
		g.Go(func() error { return push(layers[i].Desc, blobs[i], true) })
	}
	g.Go(func() error { return push(ocispec.DescriptorEmptyJSON, ocispec.DescriptorEmptyJSON.Data, false) })
	if err := g.Wait(); err != nil {
		return Pushed{}, err
	}
	manifest, err := buildManifest(layers)
	if err != nil {
		return Pushed{}, err
	}
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ArtifactType, Digest: digest.FromBytes(manifest), Size: int64(len(manifest))}
	pushed := Pushed{Digest: desc.Digest.String(), Layers: len(layers), Sent: int(sent.Load())}
	if signer == nil {
		if err := repo.PushReference(ctx, desc, bytes.NewReader(manifest), ref.Reference); err != nil {
			return Pushed{}, fmt.Errorf("push the manifest of %s: %w", ref, explain(err, ref))
		}
		return pushed, nil
	}
	if err := repo.Push(ctx, desc, bytes.NewReader(manifest)); err != nil {
		return Pushed{}, fmt.Errorf("push the manifest of %s: %w", ref, explain(err, ref))
	}
	if pushed.Signature, err = c.sign(ctx, ref, pushed.Digest, signer); err != nil {
		return Pushed{}, err
	}
	if err := repo.Tag(ctx, desc, ref.Reference); err != nil {
		return Pushed{}, fmt.Errorf("tag %s: %w", ref, explain(err, ref))
	}
	return pushed, nil
}

// sign attaches signer's signature to the manifest manifestDigest of ref,
// unless one by the same key is attached already, and returns its digest.
func (c Cache) sign(ctx context.Context, ref registry.OCIReference, manifestDigest string, signer *Signer) (string, error) {
	listed, err := (Cache{Client: c.Client, Credential: c.Credential, Uncached: true}).Signatures(ctx, ref, manifestDigest)
	if err != nil {
		return "", err
	}
	for _, s := range listed.Signatures {
		if signer.Signs(s.Bundle, manifestDigest) {
			return s.Digest, nil
		}
	}
	bundle, err := signer.Sign(manifestDigest)
	if err != nil {
		return "", err
	}
	return c.PushSignature(ctx, ref, manifestDigest, bundle)
}

// checkTag refuses to move ref's tag off an artifact skillsync did not push:
// an image, or another tool's artifact, tagged there by mistake.
func checkTag(ctx context.Context, repo *remote.Repository, ref registry.OCIReference) error {
	desc, rc, err := repo.FetchReference(ctx, ref.Reference)
	if errors.Is(err, errdef.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read what %s names now: %w", ref, explain(err, ref))
	}
	defer rc.Close()
	if desc.Size > maxManifestSize {
		return fmt.Errorf("%s names a manifest of %d bytes, which skillsync did not push; push to another tag", ref, desc.Size)
	}
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		return fmt.Errorf("read what %s names now: %w", ref, err)
	}
	var m ocispec.Manifest
	if json.Unmarshal(data, &m) != nil || m.ArtifactType != ArtifactType {
		return fmt.Errorf("%s names a %q (%s), not skills skillsync published; it is left as it is: push to another tag", ref, orUnknown(m.ArtifactType, m.MediaType, desc.MediaType), desc.Digest)
	}
	return nil
}

// orUnknown is the first of kinds that is not empty.
func orUnknown(kinds ...string) string {
	for _, k := range kinds {
		if k != "" {
			return k
		}
	}
	return "manifest of no known type"
}
