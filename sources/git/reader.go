package git

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillsync/skillsync/desired/registry"
)

// Timeout bounds each git operation of a Reader: a host that stops answering
// fails the load instead of holding it for good.
const Timeout = 5 * time.Minute

// Reader reads the sources of a load through the cache, fetching a commit the
// cache lacks unless offline. It keeps what it last read of each source's
// folder, so that a watcher reads a commit once, and holds no more than one
// commit of each.
type Reader struct {
	Cache Cache

	mu   sync.Mutex
	read map[readKey]readFiles
}

// readKey is a source's folder; readFiles what was read of it last.
type readKey struct{ remote, path string }

type readFiles struct {
	commit, taken string
	files         []registry.SourceFile
}

// NewReader reads through cache.
func NewReader(cache Cache) *Reader { return &Reader{Cache: cache} }

// ReadSource is every entry of the skill directories of src's folder at the
// commit at pins (those at takes; resolving, those src includes, or every
// folder with a SKILL.md), the commit fetched into the cache first when it
// lacks it.
func (r *Reader) ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error) {
	commit := at.Commit
	// The skills the lock takes, or, resolving, those include names; nil, every
	// folder with a SKILL.md.
	var take func(string) bool
	var taken []string
	switch {
	case len(at.Skills) > 0:
		taken = slices.Sorted(maps.Keys(at.Skills))
	case len(src.Include) > 0:
		taken = slices.Sorted(slices.Values(src.Include))
	}
	if taken != nil {
		take = func(s string) bool { _, ok := slices.BinarySearch(taken, s); return ok }
	}
	key, want := readKey{src.Git, src.Path}, readFiles{commit: commit, taken: strings.Join(taken, "\x00") + "\x01" + strings.Join(src.Registry, "\x00")}
	r.mu.Lock()
	last, ok := r.read[key]
	r.mu.Unlock()
	if ok && last.commit == want.commit && last.taken == want.taken {
		return last.files, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if err := r.Cache.Fetch(ctx, src.Git, commit); err != nil {
		return nil, err
	}
	read, err := r.Cache.Files(ctx, src.Git, commit, src.Path, take, nil, DefaultLimits)
	if err != nil {
		return nil, err
	}
	files := make([]registry.SourceFile, len(read))
	for i, f := range read {
		files[i] = registry.SourceFile{Path: f.Path, Dir: f.Dir, Link: f.Link, Other: f.Submodule, Executable: f.Executable, Data: f.Data}
	}
	if len(src.Registry) > 0 {
		// Registry files are found from the repository's root, wherever its
		// skill directories are.
		none := func(string) bool { return false }
		// They share the source's budget with its skill directories.
		limits := DefaultLimits
		for _, f := range read {
			limits.Bytes -= int64(len(f.Data))
		}
		limits.Files -= len(read)
		documents, err := r.Cache.Files(ctx, src.Git, commit, "", none, src.TakesDocument, limits)
		if err != nil {
			return nil, err
		}
		for _, f := range documents {
			files = append(files, registry.SourceFile{Path: f.Path, Document: true, Link: f.Link, Other: f.Submodule, Data: f.Data})
		}
	}
	want.files = files
	r.mu.Lock()
	if r.read == nil {
		r.read = map[readKey]readFiles{}
	}
	r.read[key] = want
	r.mu.Unlock()
	return files, nil
}

// Resolve is src as its ref names it now: the commit, in a lock entry whose
// skills are still to be read.
func (r *Reader) Resolve(src registry.RemoteSource) (registry.LockedSource, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	commit, err := r.Cache.Resolve(ctx, src.Git, src.Ref)
	if err != nil {
		return registry.LockedSource{}, err
	}
	// A ref that is a commit id was chosen by a person: no cooldown applies.
	if src.MinimumAge > 0 && !IsCommit(src.Ref) {
		made, err := r.Cache.CommitTime(ctx, src.Git, commit)
		if err != nil {
			return registry.LockedSource{}, err
		}
		if age := time.Since(made); age < src.MinimumAge {
			return registry.LockedSource{}, &registry.TooRecentError{Ref: orDefault(src.Ref), Commit: commit, Made: made, Age: age, MinimumAge: src.MinimumAge, By: src.MinimumAgeBy}
		}
	}
	return registry.LockedSource{Name: src.Name, Git: src.Git, Ref: src.Ref, Path: src.Path, Commit: commit}, nil
}

// orDefault names ref in messages: the default branch when it is empty.
func orDefault(ref string) string {
	if ref == "" {
		return "the default branch"
	}
	return "ref " + ref
}

// Tags are the names of the tags src's remote has now.
func (r *Reader) Tags(src registry.RemoteSource) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	return r.Cache.Tags(ctx, src.Git)
}
