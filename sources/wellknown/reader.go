package wellknown

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/archive"
)

// Reader reads index sources for a load through the cache. It keeps the files
// of the artifacts it last read of each index, so that a watcher reads an
// artifact once.
type Reader struct {
	Cache Cache

	mu   sync.Mutex
	read map[string]map[string][]registry.SourceFile // index URL → artifact digest → files
}

// NewReader reads through cache.
func NewReader(cache Cache) *Reader { return &Reader{Cache: cache} }

// Resolve reads src's index now: its digest, and the artifact of every skill
// it takes (those include names, or all), in a lock entry whose skills are
// still to be read.
func (r *Reader) Resolve(src registry.RemoteSource) (registry.LockedSource, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	ix, digest, err := r.Cache.ReadIndex(ctx, src.Index)
	if err != nil {
		return registry.LockedSource{}, err
	}
	locked := registry.LockedSource{Name: src.Name, Index: src.Index, Digest: digest, Artifacts: map[string]registry.Artifact{}}
	for _, e := range ix.Skills {
		if len(src.Include) > 0 && !slices.Contains(src.Include, e.Name) {
			continue
		}
		if err := checkEntry(e); err != nil {
			return registry.LockedSource{}, err
		}
		if _, twice := locked.Artifacts[e.Name]; twice {
			return registry.LockedSource{}, fmt.Errorf("the index names skill %s twice", e.Name)
		}
		locked.Artifacts[e.Name] = registry.Artifact{Type: e.Type, URL: e.URL, Digest: e.Digest}
	}
	for _, name := range src.Include {
		if _, ok := locked.Artifacts[name]; !ok {
			return registry.LockedSource{}, fmt.Errorf("the index %s names no skill %s", registry.RedactRemote(src.Index), name)
		}
	}
	return locked, nil
}

// ReadSource is the files of the skills at takes (all its artifacts while it
// names no skills yet), each under a folder of the skill's name: a skill-md
// artifact is the skill's SKILL.md, an archive its whole directory.
func (r *Reader) ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error) {
	names := slices.Sorted(maps.Keys(at.Skills))
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(at.Artifacts))
	}
	r.mu.Lock()
	last := r.read[src.Index]
	r.mu.Unlock()
	if len(names) > archive.MaxSourceSkills {
		return nil, fmt.Errorf("the index names %d skills; at most %d are read", len(names), archive.MaxSourceSkills)
	}
	kept := map[string][]registry.SourceFile{}
	var out []registry.SourceFile
	var total int64
	for _, name := range names {
		a, ok := at.Artifacts[name]
		if !ok {
			return nil, fmt.Errorf("the lock names no artifact of skill %s", name)
		}
		files, ok := last[a.Digest]
		if !ok {
			var err error
			if files, err = r.artifactFiles(a); err != nil {
				return nil, fmt.Errorf("skill %s: %w", name, err)
			}
		}
		for _, f := range files {
			total += int64(len(f.Data))
		}
		if total > archive.MaxSourceBytes {
			return nil, fmt.Errorf("the skills of %s hold more than %d bytes", registry.RedactRemote(src.Index), archive.MaxSourceBytes)
		}
		kept[a.Digest] = files
		out = append(out, registry.SourceFile{Path: name, Dir: true})
		for _, f := range files {
			f.Path = name + "/" + f.Path
			out = append(out, f)
		}
	}
	r.mu.Lock()
	if r.read == nil {
		r.read = map[string]map[string][]registry.SourceFile{}
	}
	r.read[src.Index] = kept
	r.mu.Unlock()
	return out, nil
}

// artifactFiles are the files of the skill directory a holds.
func (r *Reader) artifactFiles(a registry.Artifact) ([]registry.SourceFile, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	data, err := r.Cache.Artifact(ctx, a)
	if err != nil {
		return nil, err
	}
	if a.Type == registry.ArtifactSkillMD {
		return []registry.SourceFile{{Path: "SKILL.md", Data: data}}, nil
	}
	files, err := archive.Unpack(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", registry.RedactRemote(a.URL), err)
	}
	return files, nil
}
