package registry

import (
	"bytes"
	"crypto/sha256"

	yaml "go.yaml.in/yaml/v3"
)

// A watcher's save of one capability in a file of a thousand would parse, decode
// and check the thousand again. A file is cut into pieces where a line starts a
// document, and a piece whose bytes the file held at the last load, where they
// decoded to one capability without a problem, is taken as it decoded then: only
// the pieces that changed are parsed. No scalar can hold a line that starts a
// document (YAML ends the document there), so each piece parses alone to what the
// whole file parses to at its place, lines counted from the piece's first; any
// piece with a problem sends the file to the parser whole, for the messages a
// load without a cache gives.

// piece is the bytes of a file from a line that starts a document (or from the
// file's start) to the next such line.
type piece struct {
	data []byte
	line int // the file's line the piece starts on, from 1
	sum  [32]byte
}

// cutDocuments cuts data before every line that starts a document ("---" alone,
// or followed by a space or tab).
func cutDocuments(data []byte) []piece {
	var pieces []piece
	start, startLine, line := 0, 1, 1
	for at := 0; at < len(data); {
		next := len(data)
		if nl := bytes.IndexByte(data[at:], '\n'); nl >= 0 {
			next = at + nl + 1
		}
		if at > start && startsDocument(data[at:next]) {
			pieces = append(pieces, piece{data: data[start:at], line: startLine})
			start, startLine = at, line
		}
		at, line = next, line+1
	}
	pieces = append(pieces, piece{data: data[start:], line: startLine})
	for i := range pieces {
		pieces[i].sum = sha256.Sum256(pieces[i].data)
	}
	return pieces
}

func startsDocument(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := line[3:]
	return len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r' || rest[0] == ' ' || rest[0] == '\t'
}

// earlier is what the pieces of a file's last version decoded to: the capability
// of each piece that declared one and nothing else, by the piece's digest.
type earlier map[[32]byte]Capability

// parseByPiece parses data, the bytes of file, a piece at a time, leaving out the
// pieces before holds. It returns the source, its documents, and the capability of
// every document before decoded, by the document's index; ok is false when a
// piece does not parse alone without a problem, and the file must be parsed whole.
func parseByPiece(file string, data []byte, before earlier) (src *source, docs []document, taken map[int]Capability, ok bool) {
	if p := checkBytes(file, data); p != nil {
		return nil, nil, nil, false
	}
	src = &source{file: file, data: data}
	taken = map[int]Capability{}
	for _, p := range cutDocuments(data) {
		if c, known := before[p.sum]; known {
			taken[len(src.roots)] = c
			src.roots = append(src.roots, nil) // parsed again only for a position
			src.sums = append(src.sums, p.sum)
			continue
		}
		roots, ps := parseDocuments(file, p.data)
		if len(ps) > 0 {
			return nil, nil, nil, false
		}
		for _, root := range roots {
			moveDown(root, p.line-1, map[*yaml.Node]bool{})
			src.roots = append(src.roots, root)
			var sum [32]byte
			if len(roots) == 1 {
				sum = p.sum
			}
			src.sums = append(src.sums, sum)
		}
	}
	docs = make([]document, len(src.roots))
	for i := range docs {
		docs[i] = document{src: src, index: i}
	}
	return src, docs, taken, true
}

// moveDown adds lines to the line of n and of every node under it.
func moveDown(n *yaml.Node, lines int, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	n.Line += lines
	for _, c := range n.Content {
		moveDown(c, lines, seen)
	}
	moveDown(n.Alias, lines, seen)
}
