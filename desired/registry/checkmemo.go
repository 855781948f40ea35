package registry

import (
	"crypto/sha256"
	"maps"
	"slices"
	"sync"
)

// checked is what the checks of one declaration that need no other declaration
// found: its problems in the order they are reported, split where the
// declaration's name is claimed against the others'.
type checked struct {
	// claimID says the capability's id is valid, to be claimed before beforeName.
	claimID    bool
	beforeName Problems
	// claimName says the alias or skill name is valid, to be claimed between the
	// two.
	claimName bool
	afterName Problems
}

// checkMemo keeps what the checks of each declaration found, from one load to
// the next, for as long as what they also depend on (the config, the client
// capabilities the profiles announce) is the same. A declaration is known by its
// document, which a Cache hands out again only for the same bytes, or by the bytes
// of its piece (see parseByPiece); what was found of a piece with a problem is
// taken again only at the same place, since a problem names its line.
type checkMemo struct {
	mu      sync.Mutex
	context [32]byte
	found   map[memoKey]memoEntry
	pass    uint32
	// taken is the map of claimed names, kept to be cleared and filled again
	// rather than grown anew for tens of thousands of names at every load.
	taken claims
}

// memoEntry is what the memo keeps of one document: most of tens of thousands
// have no problem, so problems are kept apart.
type memoEntry struct {
	claimID, claimName bool
	pass               uint32 // the last load that had the document
	problems           *[2]Problems
	at                 document // where the problems were found
}

// memoPass is one load's use of a memo: what it holds under the load's context,
// with the documents of this load marked as seen.
type memoPass struct {
	m     *checkMemo
	found map[memoKey]memoEntry
	pass  uint32
	taken claims
}

// begin starts a load's use of the memo, under context: what an earlier load
// found under another is dropped. A nil memo keeps what this load finds only.
func (m *checkMemo) begin(context [32]byte, names int) memoPass {
	if m == nil {
		return memoPass{found: map[memoKey]memoEntry{}, taken: newClaims(names)}
	}
	m.mu.Lock()
	if m.found == nil || m.context != context {
		m.context, m.found = context, map[memoKey]memoEntry{}
	}
	if m.taken.ids == nil {
		m.taken = newClaims(names)
	}
	m.pass++
	return memoPass{m: m, found: m.found, pass: m.pass, taken: m.taken}
}

// end drops what was found of documents this load did not have, and the claims,
// which point into this load's registry, and lets the next load begin.
func (p memoPass) end() {
	if p.m == nil {
		return
	}
	for doc, e := range p.found {
		if e.pass != p.pass {
			delete(p.found, doc)
		}
	}
	clear(p.taken.ids)
	clear(p.taken.names)
	p.m.mu.Unlock()
}

func (p memoPass) holds(doc document) bool {
	_, ok := p.entry(doc)
	return ok
}

// entry is what was found of doc, unless it was a problem at another place.
func (p memoPass) entry(doc document) (memoEntry, bool) {
	e, ok := p.found[doc.memoKey()]
	if ok && e.problems != nil && e.at != doc {
		return memoEntry{}, false
	}
	return e, ok
}

func (p memoPass) lookup(doc document) (checked, bool) {
	e, ok := p.entry(doc)
	ch := checked{claimID: e.claimID, claimName: e.claimName}
	if e.problems != nil {
		ch.beforeName, ch.afterName = e.problems[0], e.problems[1]
	}
	return ch, ok
}

func (p memoPass) keep(doc document, ch checked) {
	e := memoEntry{claimID: ch.claimID, claimName: ch.claimName, pass: p.pass}
	if len(ch.beforeName) > 0 || len(ch.afterName) > 0 {
		e.problems, e.at = &[2]Problems{ch.beforeName, ch.afterName}, doc
	}
	p.found[doc.memoKey()] = e
}

// context digests what a declaration's own checks read beside it: the config as
// read and the client capabilities announced.
func (v *validator) context() [32]byte {
	h := sha256.New()
	config := v.reg.Sources[v.reg.ConfigFile].Sum
	h.Write(config[:])
	for _, c := range slices.Sorted(maps.Keys(v.announced)) {
		h.Write([]byte(c))
		h.Write([]byte{0})
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}
