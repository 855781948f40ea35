package registry

import (
	"strconv"
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

// source is one input file as read. Its documents are parsed while the file loads,
// and after that only again when a problem needs a position, from the file read
// again: node trees and bytes are most of a loaded registry's size, and a registry
// of thousands of capabilities must not be held as them.
type source struct {
	file   string
	mu     sync.Mutex
	data   []byte       // nil when released
	roots  []*yaml.Node // nil when released
	reread func() []byte
	// sums are, by document, the digest of the piece of the file that holds the
	// document alone (parseByPiece) when it is a capability that decoded cleanly,
	// else zero; nil for a file parsed whole.
	sums [][32]byte
}

// parseSource parses data into its documents, which stay parsed until release.
func parseSource(file string, data []byte) (*source, []document, Problems) {
	roots, ps := parseDocuments(file, data)
	if len(ps) > 0 {
		return nil, nil, ps
	}
	src := &source{file: file, data: data, roots: roots}
	docs := make([]document, len(roots))
	for i := range roots {
		docs[i] = document{src: src, index: i}
	}
	return src, docs, nil
}

// release drops the bytes and node trees once the file's documents are decoded.
// reread gives the bytes again for a position, or nil when the file no longer holds
// what was parsed: then a position names the file alone.
func (s *source) release(reread func() []byte) {
	s.mu.Lock()
	s.data, s.roots, s.reread = nil, nil, reread
	s.mu.Unlock()
}

func (s *source) root(i int) *yaml.Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.roots == nil || i < len(s.roots) && s.roots[i] == nil {
		data := s.data
		if data == nil && s.reread != nil {
			data = s.reread()
		}
		if data == nil {
			s.reread = nil // changed since it was loaded: it stays so for this run
			return nil
		}
		// The same bytes parse into the same documents.
		s.roots, _ = parseDocuments(s.file, data)
	}
	if i < len(s.roots) {
		return s.roots[i]
	}
	return nil
}

// document is one YAML document of an input file: its top-level mapping.
type document struct {
	src   *source
	index int
}

// memoKey is what the memo of checks knows a document by: the bytes of its
// piece, where it was parsed a piece at a time, else the document itself.
type memoKey struct {
	file string
	sum  [32]byte
	doc  document
}

func (d document) memoKey() memoKey {
	if d.src != nil && d.index < len(d.src.sums) && d.src.sums[d.index] != [32]byte{} {
		return memoKey{file: d.src.file, sum: d.src.sums[d.index]}
	}
	return memoKey{doc: d}
}

func (d document) file() string {
	if d.src == nil {
		return ""
	}
	return d.src.file
}

// root is the document's node tree; nil for the zero document.
func (d document) root() *yaml.Node {
	if d.src == nil {
		return nil
	}
	return d.src.root(d.index)
}

// place is where a problem points: the value under keys in a document, or the
// item-th element of the sequence there. It is resolved only when a problem is
// reported, because resolving may parse the file again.
type place struct {
	doc  document
	keys []string
	item int // -1: the value itself
	// recorded is set when the place is the skills: selector that made the skill
	// of a capability a refresh recorded, and the problem is about that skill.
	recorded *recording
}

// recording is a capability a refresh recorded in a snapshot, as a problem at the
// selector that made its skill names it.
type recording struct {
	id, tool, snapshot string
	pattern            bool   // the selector is a pattern
	hint               string // how to leave the recorded declaration out
}

// at is the place of the value under keys.
func (d document) at(keys ...string) place { return place{doc: d, keys: keys, item: -1} }

// itemAt is the place of the i-th element of the sequence under keys.
func itemAt(d document, i int, keys ...string) place { return place{doc: d, keys: keys, item: i} }

// Position resolves the place: the value under keys (a key into a sequence is an
// index), or the deepest key path that exists, so a problem about a missing field
// points at its parent.
func (p place) Position() Position {
	n := p.doc.root()
	if n == nil {
		return Position{File: p.doc.file()}
	}
	complete := true
	for _, k := range p.keys {
		next := childNode(n, k)
		if next == nil {
			complete = false
			break
		}
		n = next
	}
	if complete && p.item >= 0 && p.item < len(n.Content) {
		n = n.Content[p.item]
	}
	return Position{File: p.doc.file(), Line: n.Line, Column: n.Column}
}

// childNode is the value under key in a mapping, or the element at index key in a
// sequence, through an alias as written.
func childNode(n *yaml.Node, key string) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.SequenceNode {
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
		return nil
	}
	return mappingValue(n, key)
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
