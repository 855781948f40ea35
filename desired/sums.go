package desired

import (
	"sync"

	"github.com/skillsync/skillsync/desired/registry"
)

// Sums remembers the digest of each file rendered, by what it was rendered from:
// its path, the declaration (registry.Declaration) and the workspace config. A
// build that asks again for the digest of a file whose declaration and config
// are those of an earlier one takes it from here instead of rendering the file.
// The watcher keeps one for as long as it runs, with the registry.Cache that
// keeps declarations the same from load to load.
type Sums struct {
	mu      sync.Mutex
	entries map[sumKey]sumEntry
	pass    int
}

type sumKey struct {
	path   string
	decl   registry.Declaration
	config registry.Source
	side   string
}

type sumEntry struct {
	sum  [32]byte
	pass int
}

// Sweep forgets every digest not asked for since the last Sweep: the files of
// declarations that changed, or went.
func (s *Sums) Sweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, e := range s.entries {
		if e.pass < s.pass {
			delete(s.entries, k)
		}
	}
	s.pass++
}

// sum is the digest of f, from s when it holds it.
func (s *Sums) sum(f File, render func() [32]byte) [32]byte {
	k := sumKey{path: f.Path, config: f.from.configSource, side: f.side}
	switch {
	case f.from.capability != nil:
		k.decl = f.from.capability.Declaration()
	case f.from.workflow != nil:
		k.decl = f.from.workflow.Declaration()
	}
	s.mu.Lock()
	e, ok := s.entries[k]
	if ok {
		e.pass = s.pass
		s.entries[k] = e
	}
	s.mu.Unlock()
	if ok {
		return e.sum
	}
	sum := render()
	s.mu.Lock()
	if s.entries == nil {
		s.entries = map[sumKey]sumEntry{}
	}
	s.entries[k] = sumEntry{sum: sum, pass: s.pass}
	s.mu.Unlock()
	return sum
}

// WithSums has every file of st take its digest from sums, or put it there.
func (st State) WithSums(sums *Sums) State {
	for p, f := range st.Files {
		f.sums = sums
		st.Files[p] = f
	}
	return st
}
