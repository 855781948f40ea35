package git

import (
	"context"
	"sync"
	"time"

	"github.com/skillsync/skillsync/desired/registry"
)

// Timeout bounds each git operation of a Reader: a host that stops answering
// fails the load instead of holding it for good.
const Timeout = 5 * time.Minute

// Reader reads the sources of a load through the cache, fetching a commit the
// cache lacks unless offline. What it read is kept for the life of the
// process, so that a watcher reads each commit once.
type Reader struct {
	Cache Cache

	mu   sync.Mutex
	read map[readKey][]registry.SourceFile
}

type readKey struct{ remote, commit, path string }

// NewReader reads through cache.
func NewReader(cache Cache) *Reader { return &Reader{Cache: cache} }

// ReadSource is every file and folder of src's folder at the commit at pins,
// fetched into the cache first when it lacks the commit.
func (r *Reader) ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error) {
	commit := at.Commit
	key := readKey{src.Git, commit, src.Path}
	r.mu.Lock()
	files, ok := r.read[key]
	r.mu.Unlock()
	if ok {
		return files, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if err := r.Cache.Fetch(ctx, src.Git, commit); err != nil {
		return nil, err
	}
	read, err := r.Cache.Files(ctx, src.Git, commit, src.Path, DefaultLimits)
	if err != nil {
		return nil, err
	}
	files = make([]registry.SourceFile, len(read))
	for i, f := range read {
		files[i] = registry.SourceFile{Path: f.Path, Dir: f.Dir, Executable: f.Executable, Data: f.Data}
	}
	r.mu.Lock()
	if r.read == nil {
		r.read = map[readKey][]registry.SourceFile{}
	}
	r.read[key] = files
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
	return registry.LockedSource{Name: src.Name, Git: src.Git, Ref: src.Ref, Path: src.Path, Commit: commit}, nil
}

// Tags are the names of the tags src's remote has now.
func (r *Reader) Tags(src registry.RemoteSource) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	return r.Cache.Tags(ctx, src.Git)
}
