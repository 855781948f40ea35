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
// document, which a Cache hands out again only for the same bytes.
type checkMemo struct {
	mu      sync.Mutex
	context [32]byte
	found   map[document]checked
}

// valid is what the memo holds for context, or nothing.
func (m *checkMemo) valid(context [32]byte) map[document]checked {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.context != context {
		return nil
	}
	return m.found
}

// keep replaces what the memo holds: documents no longer loaded go with it.
func (m *checkMemo) keep(context [32]byte, found map[document]checked) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.context, m.found = context, found
	m.mu.Unlock()
}

// context digests what a declaration's own checks read beside it: the config as
// read and the client capabilities announced.
func (v *validator) context() [32]byte {
	h := sha256.New()
	config := v.reg.Sources[ConfigName].Sum
	h.Write(config[:])
	for _, c := range slices.Sorted(maps.Keys(v.announced)) {
		h.Write([]byte(c))
		h.Write([]byte{0})
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}
