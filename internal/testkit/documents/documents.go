package documents

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Edit changes content, a YAML stream whose documents are separated by lines
// "---", in one of the ways a save does, with newDocument giving a document to
// add (ending in a newline), and says how. A stream of one document gets a second
// when the edit needs two.
func Edit(rng *rand.Rand, content string, newDocument func() string) (edited, how string) {
	docs := split(content)
	edit := rng.IntN(4)
	if edit != 0 && edit != 3 && len(docs) < 2 {
		edit = 0
	}
	switch edit {
	case 0:
		at := rng.IntN(len(docs) + 1)
		docs = append(docs[:at], append([][]string{lines(newDocument())}, docs[at:]...)...)
		return join(docs), fmt.Sprintf("add a document at %d", at)
	case 1:
		at := rng.IntN(len(docs))
		docs = append(docs[:at], docs[at+1:]...)
		return join(docs), fmt.Sprintf("remove document %d", at)
	case 2:
		i := rng.IntN(len(docs))
		j := (i + 1 + rng.IntN(len(docs)-1)) % len(docs)
		docs[i], docs[j] = docs[j], docs[i]
		return join(docs), fmt.Sprintf("swap documents %d and %d", i, j)
	}
	var long []int
	for i, d := range docs {
		if len(d) > 1 {
			long = append(long, i)
		}
	}
	if len(long) == 0 {
		return join(append(docs, nil)), "a stray --- at the end"
	}
	d := long[rng.IntN(len(long))]
	cut := 1 + rng.IntN(len(docs[d])-1)
	head, tail := docs[d][:cut:cut], docs[d][cut:]
	docs = append(docs[:d], append([][]string{head, tail}, docs[d+1:]...)...)
	return join(docs), fmt.Sprintf("a stray --- after line %d of document %d", cut, d)
}

// split is content's documents, each as its lines (with their newlines); a
// stream that begins with "---" has an empty first document.
func split(content string) [][]string {
	docs := [][]string{nil}
	for _, line := range lines(content) {
		if strings.TrimRight(line, "\n") == "---" {
			docs = append(docs, nil)
			continue
		}
		docs[len(docs)-1] = append(docs[len(docs)-1], line)
	}
	return docs
}

// join is the stream of docs; a document that does not end in a newline gets
// one before the next document's separator.
func join(docs [][]string) string {
	var b strings.Builder
	for i, d := range docs {
		if i > 0 {
			if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
				b.WriteString("\n")
			}
			b.WriteString("---\n")
		}
		for _, l := range d {
			b.WriteString(l)
		}
	}
	return b.String()
}

func lines(s string) []string {
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
