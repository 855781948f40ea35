package registry

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// A document is refused before it is decoded when its aliases would make it larger
// than maxValues values, or when it nests deeper than maxDepth levels. YAML aliases
// let a file of a kilobyte stand for billions of values (an "alias bomb"); every
// reader of the document (decoding, the input schema as JSON, its validation) would
// expand them, so the bound is checked once, on the node tree, in time and memory
// proportional to the file. No real registry document comes near either limit.
const (
	maxValues = 100_000
	maxDepth  = 128
)

// checkLimits measures the document at root as it would be expanded.
func checkLimits(file string, root *yaml.Node) *Problem {
	m := measurer{anchored: map[*yaml.Node]extent{}}
	total := m.measure(root)
	if total.values > maxValues && m.biggestAlias == nil {
		return &Problem{Pos: Position{File: file, Line: root.Line, Column: root.Column},
			Message: fmt.Sprintf("the document holds more than %d values, the most skillsync reads from one document", maxValues),
			Hint:    "split it: one capability, skill or profile a document"}
	}
	if total.values > maxValues {
		at := m.biggestAlias
		return &Problem{Pos: Position{File: file, Line: at.Line, Column: at.Column},
			Message: fmt.Sprintf("aliases expand the document to more than %d values, the most skillsync reads; the largest alias is here", maxValues),
			Hint:    "write the values out, or use fewer aliases of aliases; a document this large is almost certainly an alias bomb"}
	}
	if total.depth > maxDepth {
		at := deepest(root, 1)
		return &Problem{Pos: Position{File: file, Line: at.Line, Column: at.Column},
			Message: fmt.Sprintf("the document nests %d levels deep here, more than the %d skillsync reads", total.depth, maxDepth),
			Hint:    "flatten it; an input schema that deep is more than any client will show the model"}
	}
	return nil
}

// extent is how many values a node stands for and how deep it nests, its aliases
// expanded.
type extent struct{ values, depth int }

// measurer remembers the extent of anchored nodes only: an alias can refer to
// nothing else, and the tree is walked once, so a document without anchors costs
// no memory at all.
type measurer struct {
	anchored     map[*yaml.Node]extent
	biggestAlias *yaml.Node
	biggest      int // the values biggestAlias stands for
}

func (m *measurer) measure(n *yaml.Node) extent {
	if n == nil {
		return extent{}
	}
	if n.Anchor != "" {
		if e, ok := m.anchored[n]; ok {
			return e
		}
		m.anchored[n] = extent{} // an anchor inside its own value (the parser refuses it) counts once
	}
	var e extent
	if n.Kind == yaml.AliasNode {
		e = m.measure(n.Alias)
		if e.values > m.biggest {
			m.biggestAlias, m.biggest = n, e.values
		}
	} else {
		e = extent{values: 1, depth: 1}
		for _, c := range n.Content {
			ce := m.measure(c)
			e.values = min(e.values+ce.values, maxValues+1)
			e.depth = max(e.depth, ce.depth+1)
		}
	}
	if n.Anchor != "" {
		m.anchored[n] = e
	}
	return e
}

// deepest finds where n, at depth, first nests past maxDepth in the file as
// written: the node at that depth, or the alias that leads past it; nil when it
// does not. It runs for a document whose values are within maxValues, so even
// through aliases it visits at most that many.
func deepest(n *yaml.Node, depth int) *yaml.Node {
	if depth > maxDepth {
		return n
	}
	if n.Kind == yaml.AliasNode {
		if deepest(n.Alias, depth) != nil {
			return n
		}
		return nil
	}
	for _, c := range n.Content {
		if at := deepest(c, depth+1); at != nil {
			return at
		}
	}
	return nil
}
