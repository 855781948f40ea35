// Package textdiff renders the unified diff of two small texts, for `--diff`.
package textdiff

import (
	"fmt"
	"strings"
)

const context = 3

// Unified returns a unified diff from old to new, labelled a/name and b/name; empty
// when the texts are equal. A side that does not exist is given as nil.
func Unified(name string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	a, b := lines(old), lines(new)
	ops := diff(a, b)
	oldLabel, newLabel := "a/"+name, "b/"+name
	if old == nil {
		oldLabel = "/dev/null"
	}
	if new == nil {
		newLabel = "/dev/null"
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldLabel, newLabel)
	for _, h := range hunks(ops) {
		out.WriteString(h)
	}
	return out.String()
}

type op struct {
	kind byte // ' ', '-', '+'
	text string
	ai   int // line index in a (for ' ' and '-')
	bi   int // line index in b (for ' ' and '+')
}

func lines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	parts := strings.SplitAfter(string(s), "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// diff is a longest-common-subsequence diff; skill files are small enough for O(n·m).
func diff(a, b []string) []op {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i, j})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', b[j], i, j})
			j++
		}
	}
	return ops
}

func hunks(ops []op) []string {
	var out []string
	for start := 0; start < len(ops); {
		first := -1
		for k := start; k < len(ops); k++ {
			if ops[k].kind != ' ' {
				first = k
				break
			}
		}
		if first < 0 {
			break
		}
		lo := max(first-context, start)
		hi, quiet := first, 0
		for k := first; k < len(ops); k++ {
			if ops[k].kind == ' ' {
				quiet++
				if quiet > 2*context {
					break
				}
			} else {
				quiet = 0
				hi = k
			}
		}
		end := min(hi+context+1, len(ops))
		out = append(out, hunk(ops[lo:end]))
		start = end
	}
	return out
}

func hunk(ops []op) string {
	var body strings.Builder
	aStart, bStart, aLen, bLen := ops[0].ai, ops[0].bi, 0, 0
	for _, o := range ops {
		text := o.text
		if !strings.HasSuffix(text, "\n") {
			text += "\n\\ No newline at end of file\n"
		}
		body.WriteString(string(o.kind) + text)
		if o.kind != '+' {
			aLen++
		}
		if o.kind != '-' {
			bLen++
		}
	}
	return fmt.Sprintf("@@ -%s +%s @@\n%s", span(aStart, aLen), span(bStart, bLen), body.String())
}

func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
