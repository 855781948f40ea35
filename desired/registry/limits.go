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
	m := measurer{sizes: map[*yaml.Node]extent{}}
	total := m.measure(root)
	if total.values > maxValues {
		at := m.biggestAlias
		if at == nil {
			at = root
		}
		return &Problem{Pos: Position{File: file, Line: at.Line, Column: at.Column},
			Message: fmt.Sprintf("aliases expand the document to more than %d values, the most skillsync reads; the largest alias is here", maxValues),
			Hint:    "write the values out, or use fewer aliases of aliases; a document this large is almost certainly an alias bomb"}
	}
	if total.depth > maxDepth {
		at := deepest(root, m.sizes, 1)
		return &Problem{Pos: Position{File: file, Line: at.Line, Column: at.Column},
			Message: fmt.Sprintf("the document nests %d levels deep here, more than the %d skillsync reads", total.depth, maxDepth),
			Hint:    "flatten it; an input schema that deep is more than any client will show the model"}
	}
	return nil
}

// extent is how many values a node stands for and how deep it nests, its aliases
// expanded.
type extent struct{ values, depth int }

type measurer struct {
	sizes        map[*yaml.Node]extent
	biggestAlias *yaml.Node
}

func (m *measurer) measure(n *yaml.Node) extent {
	if n == nil {
		return extent{}
	}
	if e, ok := m.sizes[n]; ok {
		return e
	}
	m.sizes[n] = extent{} // an anchor inside its own value (the parser refuses it) counts once
	var e extent
	if n.Kind == yaml.AliasNode {
		e = m.measure(n.Alias)
		if m.biggestAlias == nil || e.values > m.sizes[aliasTarget(m.biggestAlias)].values {
			m.biggestAlias = n
		}
	} else {
		e = extent{values: 1, depth: 1}
		for _, c := range n.Content {
			ce := m.measure(c)
			e.values = min(e.values+ce.values, maxValues+1)
			e.depth = max(e.depth, ce.depth+1)
		}
	}
	m.sizes[n] = e
	return e
}

func aliasTarget(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode {
		return n.Alias
	}
	return n
}

// deepest finds where root first nests past maxDepth, in the file as written: the
// node at that depth, or the alias that leads past it.
func deepest(n *yaml.Node, sizes map[*yaml.Node]extent, depth int) *yaml.Node {
	if depth > maxDepth || n.Kind == yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if depth+sizes[c].depth > maxDepth {
			return deepest(c, sizes, depth+1)
		}
	}
	return n
}
