package documents

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSplitAndJoinGiveTheStreamBack(t *testing.T) {
	for _, content := range []string{
		"", "a: 1\n", "a: 1", "---\na: 1\n", "a: 1\n---\nb: 2\n", "a: 1\n---\nb: 2", "a: 1\n---\n", "---\n---\n", "a: 1\n---\n\n---\nc: 3\n",
	} {
		if got := join(split(content)); got != content {
			t.Errorf("join(split(%q)) = %q", content, got)
		}
	}
}

func TestEachEditDoesWhatItSays(t *testing.T) {
	const stream = "kind: A\nname: a\n---\nkind: B\nname: b\n---\nkind: C\nname: c\n"
	added := "kind: New\nname: new\n"
	seen := map[string]bool{}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, seed))
		edited, how := Edit(rng, stream, func() string { return added })
		before, after := split(stream), split(edited)
		kind := strings.Fields(how)[0] + " " + strings.Fields(how)[1]
		seen[kind] = true
		switch kind {
		case "add a":
			if len(after) != 4 || !slices.ContainsFunc(after, func(d []string) bool { return strings.Join(d, "") == added }) {
				t.Fatalf("%s: %q", how, edited)
			}
		case "remove document":
			if len(after) != 2 || !strings.Contains(stream, strings.Join(after[0], "")) || !strings.Contains(stream, strings.Join(after[1], "")) {
				t.Fatalf("%s: %q", how, edited)
			}
		case "swap documents":
			if len(after) != 3 || slices.EqualFunc(before, after, slices.Equal) || sorted(before) != sorted(after) {
				t.Fatalf("%s: %q", how, edited)
			}
		case "a stray":
			if len(after) != 4 || strings.ReplaceAll(edited, "---\n", "") != strings.ReplaceAll(stream, "---\n", "") {
				t.Fatalf("%s: %q", how, edited)
			}
		default:
			t.Fatalf("unknown edit %q", how)
		}
	}
	if len(seen) != 4 {
		t.Fatalf("edits made: %v, want all four", seen)
	}
}

func TestAStreamOfOneDocumentStillGetsEdited(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, seed))
		edited, how := Edit(rng, "name: a\n", func() string { return "name: b\n" })
		if edited == "name: a\n" {
			t.Fatalf("%s left the stream as it was", how)
		}
	}
}

func sorted(docs [][]string) string {
	var s []string
	for _, d := range docs {
		s = append(s, strings.Join(d, ""))
	}
	slices.Sort(s)
	return strings.Join(s, "|")
}
