package controller

import (
	"cmp"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired"
)

// targetCache is what the last passes planned in one target directory, entry by
// entry: each skill directory (or whatever a person put in its place) is planned
// from what is in it and the one skill of its name, and nothing else, so the
// entries a pass did not read keep the plan they had.
type targetCache struct {
	target, dir string
	entries     []entry // in the order of the paths in them (entryOrder)
	// folded are the names of entries that are not in lower case, by their lower
	// case: such an entry and the skill directory it differs from only in case
	// are planned together.
	folded   map[string][]string
	withheld []desired.Withheld
	// blocked says the target directory must not be written (a symlink, a file);
	// escapes are links on the way to it that lead out of the workspace.
	blocked bool
	escapes []string
}

// entry is what one entry of a target directory holds and wants. Most of tens of
// thousands are a skill directory in sync, so what few have is kept apart.
type entry struct {
	name    string
	inSync  []string
	rare    *rareEntry
	wanted  int32 // files desired in it
	present bool  // it is in the target directory
	// git are the lines the skill directory adds to the target's git files.
	git desired.GitLines
}

// rareEntry is what an entry that is not simply in sync has.
type rareEntry struct {
	changes     []plan.Change
	handWritten []string
	escapes     []string
}

func (e *entry) more() *rareEntry {
	if e.rare == nil {
		e.rare = &rareEntry{}
	}
	return e.rare
}

func (e entry) empty() bool {
	return e.rare == nil && len(e.inSync) == 0 && e.wanted == 0 && !e.present
}

// gitLines are the lines every skill directory of the target adds to its git
// files: those of the entries called names as want makes them, the others' as
// kept.
func (tc *targetCache) gitLines(names map[string]bool, want desired.State) map[string]desired.GitLines {
	out := want.GitLinesByEntry(tc.dir)
	for _, e := range tc.entries {
		if !names[e.name] && (len(e.git.Attributes) > 0 || len(e.git.Ignore) > 0) {
			out[e.name] = e.git
		}
	}
	return out
}

// newTargetCache keeps one target's part of a full pass.
func newTargetCache(p targetPart) *targetCache {
	dir := clients.Dir(p.target)
	tc := &targetCache{target: p.target, dir: dir, folded: map[string][]string{}, blocked: len(p.have.Blocked) > 0, withheld: p.want.Withheld}
	for _, e := range p.have.Escapes {
		if _, ok := entryName(dir, e); !ok {
			tc.escapes = append(tc.escapes, e)
		}
	}
	tc.entries = tc.found(entriesOf(dir, p))
	return tc
}

// replace plans again the entries called names, from p, which holds them and
// nothing else.
func (tc *targetCache) replace(names map[string]bool, p targetPart) {
	tc.entries = slices.DeleteFunc(tc.entries, func(e entry) bool { return names[e.name] })
	for lower, ns := range tc.folded {
		if kept := slices.DeleteFunc(ns, func(n string) bool { return names[n] }); len(kept) > 0 {
			tc.folded[lower] = kept
		} else {
			delete(tc.folded, lower)
		}
	}
	tc.withheld = slices.DeleteFunc(tc.withheld, func(w desired.Withheld) bool { return names[w.Skill] })
	tc.withheld = append(tc.withheld, p.want.Withheld...)
	desired.SortWithheld(tc.withheld)
	for _, e := range tc.found(entriesOf(tc.dir, p)) {
		at, _ := slices.BinarySearchFunc(tc.entries, e.name, func(e entry, name string) int { return entryOrder(e.name, name) })
		tc.entries = slices.Insert(tc.entries, at, e)
	}
}

// found are the entries that hold or want anything, in order, each not in lower
// case noted in folded.
func (tc *targetCache) found(entries map[string]entry) []entry {
	out := make([]entry, 0, len(entries))
	for name, e := range entries {
		if e.empty() {
			continue
		}
		if lower := strings.ToLower(name); lower != name && e.present {
			tc.folded[lower] = append(tc.folded[lower], name)
		}
		e.name = name
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b entry) int { return entryOrder(a.name, b.name) })
	return out
}

// entriesOf splits the plan of a target, and the states it was made from, by the
// entry of the target directory dir each path is in.
func entriesOf(dir string, p targetPart) map[string]entry {
	out := map[string]entry{}
	at := func(path string, change func(*entry)) {
		if name, ok := entryName(dir, path); ok {
			e := out[name]
			change(&e)
			out[name] = e
		}
	}
	for _, c := range p.plan.Changes {
		at(c.Path, func(e *entry) { e.more().changes = append(e.more().changes, c) })
	}
	for _, path := range p.plan.InSync {
		at(path, func(e *entry) { e.inSync = append(e.inSync, path) })
	}
	for _, path := range p.have.HandWrittenSkills() {
		at(path, func(e *entry) { e.more().handWritten = append(e.more().handWritten, path) })
	}
	for _, path := range p.have.Escapes {
		at(path, func(e *entry) { e.more().escapes = append(e.more().escapes, path) })
	}
	for path := range p.want.Files {
		at(path, func(e *entry) { e.wanted++ })
	}
	for _, path := range p.have.Entries {
		at(path, func(e *entry) { e.present = true })
	}
	for name, lines := range p.want.GitLinesByEntry(dir) {
		e := out[name]
		e.git = lines
		out[name] = e
	}
	return out
}

// entryName is the name of the entry of the target directory dir that path is, or
// is in.
func entryName(dir, path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, dir+"/")
	if !ok || rest == "" {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "/")
	return name, true
}

// entryOrder orders entry names as the paths in them sort: a name is followed by
// a slash in every path it is part of.
func entryOrder(a, b string) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	switch {
	case len(a) == len(b):
		return 0
	case len(a) < len(b):
		return cmp.Compare('/', b[n])
	}
	return cmp.Compare(a[n], '/')
}
