package oci

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/archive"
)

// fetches is how many layers are fetched at once.
const fetches = 8

// Reader reads OCI sources for a load through the cache. It keeps the files of
// the layers it last read of each artifact, so that a watcher reads a layer
// once.
type Reader struct {
	Cache Cache

	mu   sync.Mutex
	read map[string]map[string][]registry.SourceFile // reference → memoKey → files
	// verified are the signatures verified: signer, signature and manifest
	// digests.
	verified map[string]bool
}

// memoKey names what was read of a layer: its files depend on its digest and
// on the skill it is read as, whose folder every entry must be in.
func memoKey(l Layer) string { return l.Skill + "\x00" + l.Desc.Digest.String() }

// NewReader reads through cache.
func NewReader(cache Cache) *Reader { return &Reader{Cache: cache} }

// Resolve reads the manifest src's tag names now: a lock entry pinned to its
// digest, whose skills are still to be read.
func (r *Reader) Resolve(src registry.RemoteSource) (registry.LockedSource, error) {
	ref, err := registry.ParseOCIReference(src.OCI)
	if err != nil {
		return registry.LockedSource{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	d, data, err := r.Cache.Resolve(ctx, ref)
	if err != nil {
		return registry.LockedSource{}, err
	}
	c, err := readManifest(data)
	if err != nil {
		return registry.LockedSource{}, fmt.Errorf("%s: %w", ref, err)
	}
	for _, name := range src.Include {
		if _, ok := c.skills[name]; !ok {
			return registry.LockedSource{}, fmt.Errorf("the artifact %s holds no skill %s", ref, name)
		}
	}
	locked := registry.LockedSource{Name: src.Name, OCI: src.OCI, Digest: d}
	if len(src.Signers) > 0 {
		listed, err := r.Cache.Signatures(ctx, ref, d)
		if err != nil {
			return registry.LockedSource{}, err
		}
		if locked.Signatures, err = chooseSignatures(src, ref, d, listed); err != nil {
			return registry.LockedSource{}, err
		}
	}
	return locked, nil
}

// ReadSource is the files of the skills at takes (those src includes, or all
// the artifact holds, while at names no skills yet), each under a folder of the
// skill's name, and the registry files src takes, read from the manifest at
// pins.
func (r *Reader) ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error) {
	ref, err := registry.ParseOCIReference(src.OCI)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	// Nothing of a source that must be signed is read before its signatures
	// verify.
	if err := r.checkSignatures(ctx, src, ref, at); err != nil {
		return nil, err
	}
	data, err := r.Cache.Manifest(ctx, ref, at.Digest)
	if err != nil {
		return nil, err
	}
	c, err := readManifest(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	layers := c.skills
	names := slices.Sorted(maps.Keys(at.Skills))
	if len(names) == 0 {
		names = slices.Clone(src.Include)
	}
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(layers))
	}
	r.mu.Lock()
	last := r.read[src.OCI]
	r.mu.Unlock()
	for _, name := range names {
		if _, ok := layers[name]; !ok {
			return nil, fmt.Errorf("the artifact %s at %s holds no skill %s", ref, at.Digest, name)
		}
	}
	var documents []Layer
	for _, p := range slices.Sorted(maps.Keys(c.documents)) {
		if src.TakesDocument(p) {
			documents = append(documents, c.documents[p])
		}
	}
	// Registry files share the source's budget with its skills, counted as
	// declared before any is fetched.
	var total atomic.Int64
	for _, l := range documents {
		if total.Add(l.Desc.Size) > archive.MaxSourceBytes {
			return nil, fmt.Errorf("the registry files %s takes hold more than %d bytes", ref, archive.MaxSourceBytes)
		}
	}
	documentData := make([][]byte, len(documents))
	files := make([][]registry.SourceFile, len(names))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetches)
	for i, name := range names {
		l := layers[name]
		if kept, ok := last[memoKey(l)]; ok {
			files[i] = kept
			total.Add(sizeOf(kept))
			continue
		}
		g.Go(func() error {
			gz, err := r.Cache.Layer(gctx, ref, l.Desc)
			if err != nil {
				return fmt.Errorf("skill %s: %w", name, err)
			}
			if files[i], err = skillFiles(name, gz); err != nil {
				return err
			}
			if total.Add(sizeOf(files[i])) > archive.MaxSourceBytes {
				return fmt.Errorf("the skills of %s hold more than %d bytes", ref, archive.MaxSourceBytes)
			}
			return nil
		})
	}
	for i, l := range documents {
		g.Go(func() error {
			data, err := r.Cache.Layer(gctx, ref, l.Desc)
			if err != nil {
				return fmt.Errorf("registry file %s: %w", l.Skill, err)
			}
			documentData[i] = data
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	kept := map[string][]registry.SourceFile{}
	var out []registry.SourceFile
	for i, name := range names {
		kept[memoKey(layers[name])] = files[i]
		out = append(out, registry.SourceFile{Path: name, Dir: true})
		for _, f := range files[i] {
			f.Path = name + "/" + f.Path
			out = append(out, f)
		}
	}
	for i, l := range documents {
		out = append(out, registry.SourceFile{Path: l.Skill, Document: true, Data: documentData[i]})
	}
	r.mu.Lock()
	if r.read == nil {
		r.read = map[string]map[string][]registry.SourceFile{}
	}
	r.read[src.OCI] = kept
	r.mu.Unlock()
	return out, nil
}

// sizeOf is the bytes of files.
func sizeOf(files []registry.SourceFile) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f.Data))
	}
	return n
}

// Tags are the tags of src's repository.
func (r *Reader) Tags(src registry.RemoteSource) ([]string, error) {
	ref, err := registry.ParseOCIReference(src.OCI)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	return r.Cache.Tags(ctx, ref)
}
