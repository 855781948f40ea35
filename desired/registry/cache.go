package registry

import (
	"slices"
	"sync"
)

// Cache keeps what each registry file decoded to, by the file's digest, from one
// load to the next: a load parses and decodes only the files whose bytes changed,
// and takes the rest as they were. What a declaration's own checks found is kept
// with it (checkMemo); the rules across declarations (one name, one meaning) are
// checked again at every load, so a load through a cache gives what a load
// without one gives. The watcher keeps one for as long as it runs; a zero Cache
// is empty and ready.
type Cache struct {
	mu     sync.Mutex
	files  map[string]decodedFile
	checks checkMemo
	// Once told to trust the changes it is told of, a cache keeps which files
	// the last load's globs matched, under which config, and which files have
	// changed since: a load takes every other file as it was, without reading it.
	// epoch counts the changes that void the listing.
	trusting bool
	listing  *listing
	changed  map[string]bool
	epoch    uint64
}

// listing is what the globs of one load matched, under one config.
type listing struct {
	config Source
	files  []string
}

// TrustChanges makes the cache take every file it holds as unchanged, and the
// globs as matching the same files, until Changed or ChangedAll says otherwise.
// A watcher that is told of every change to the inputs uses it, so that a load
// reads only the files that changed; it calls ChangedAll for any change it cannot
// pin on one file, and before a load that must read everything.
func (c *Cache) TrustChanges() {
	c.mu.Lock()
	c.trusting = true
	c.mu.Unlock()
}

// Changed says that file, workspace-relative, changed; removed says it was
// removed or renamed away, which changes what the globs match, as a file the
// last load did not read does.
func (c *Cache) Changed(file string, removed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listing != nil && !removed && slices.Contains(c.listing.files, file) {
		if c.changed == nil {
			c.changed = map[string]bool{}
		}
		c.changed[file] = true
		return
	}
	c.listing = nil
	c.epoch++
}

// ChangedAll says anything about the inputs may have changed.
func (c *Cache) ChangedAll() {
	c.mu.Lock()
	c.listing = nil
	c.epoch++
	c.mu.Unlock()
}

// trusted is what a load under config may take as read: the files the globs
// matched and those of them that changed since, which it reads again; ok is false
// when it must match the globs and read everything. epoch is for list.
func (c *Cache) trusted(config Source) (files []string, changed map[string]bool, epoch uint64, ok bool) {
	if c == nil {
		return nil, nil, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	changed, c.changed = c.changed, nil
	l := c.listing
	if !c.trusting || l == nil || l.config != config {
		return nil, nil, c.epoch, false
	}
	return l.files, changed, c.epoch, true
}

// list keeps what a load that began at epoch matched, when it read or took every
// file whole and nothing voided the listing meanwhile.
func (c *Cache) list(config Source, files []string, whole bool, epoch uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.trusting || !whole || c.epoch != epoch {
		c.listing = nil
		return
	}
	c.listing = &listing{config: config, files: files}
}

// unchanged is what file decoded to, when a trusted load takes it as it was.
func (c *Cache) unchanged(file string) (decodedFile, bool) {
	if c == nil {
		return decodedFile{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.files[file]
	return d, ok
}

// earlier is what the pieces of file decoded to at the last load that read it
// (see parseByPiece): what the load of a changed file takes as it was.
func (c *Cache) earlier(file string) earlier {
	d, ok := c.unchanged(file)
	if !ok {
		return nil
	}
	out := earlier{}
	for _, capability := range d.capabilities {
		if key := capability.doc.memoKey(); key.sum != ([32]byte{}) {
			out[key.sum] = capability
		}
	}
	return out
}

// memo is the cache's memo of checks; nil without a cache.
func (c *Cache) memo() *checkMemo {
	if c == nil {
		return nil
	}
	return &c.checks
}

// decodedFile is what one file's bytes decoded to. A file declaring a skill with
// a bodyFile or a dir is not kept: those are other files, read at every load.
type decodedFile struct {
	src          Source
	capabilities []Capability
	skills       []Skill
	profiles     []Profile
	problems     Problems
	malformed    []document
}

// lookup is what file decoded to when it held src.
func (c *Cache) lookup(file string, src Source) (decodedFile, bool) {
	if c == nil {
		return decodedFile{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.files[file]
	return d, ok && d.src == src
}

// keep replaces the cache's files with those of one load: files no longer read
// are dropped with it.
func (c *Cache) keep(files map[string]decodedFile) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.files = files
	c.mu.Unlock()
}

// replay adds what a file decoded to, as loading it would.
func (l *loader) replay(reg *Registry, d decodedFile) {
	reg.Capabilities = append(reg.Capabilities, d.capabilities...)
	reg.Skills = append(reg.Skills, d.skills...)
	reg.Profiles = append(reg.Profiles, d.profiles...)
	for _, doc := range d.malformed {
		reg.malformed[doc] = true
	}
	l.add(d.problems...)
}

// decodeFile adds the documents of file to reg, from the cache when it holds the
// same bytes, and notes what they decoded to for the next load.
func (l *loader) decodeFile(reg *Registry, file string, read readFile) {
	src := reg.Sources[file]
	if d, ok := l.cache.lookup(file, src); ok {
		l.replay(reg, d)
		l.decoded[file] = d
		return
	}
	caps, skills, profiles, problems := len(reg.Capabilities), len(reg.Skills), len(reg.Profiles), len(l.problems)
	l.addDocuments(reg, file, read)
	d := decodedFile{src: src, capabilities: reg.Capabilities[caps:], skills: reg.Skills[skills:], profiles: reg.Profiles[profiles:],
		problems: l.problems[problems:]}
	for _, s := range d.skills {
		if s.Spec.BodyFile != "" || s.Spec.Dir != "" {
			return
		}
	}
	for doc := range reg.malformed {
		if doc.file() == file {
			d.malformed = append(d.malformed, doc)
		}
	}
	d.capabilities, d.skills, d.profiles, d.problems = clone(d.capabilities), clone(d.skills), clone(d.profiles), clone(d.problems)
	l.decoded[file] = d
}

// clone copies s, or keeps nil: a slice of an append target must not share its
// array with what the next append writes.
func clone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append([]T(nil), s...)
}
