package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// capabilityDoc is a registry document of one capability with a skill.
func capabilityDoc(n, title string) string {
	return "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: tools." + n + "}\nspec:\n  title: " + title + "\n  effect: read\n" +
		"  input: {type: object, properties: {text: {type: string}}, required: [text]}\n  mcp: {tool: t_" + n + "}\n  skill: {alias: " + n + ", argument: text}\n"
}

// A file cut into documents where its lines start one parses, a piece at a time,
// to what it parses to whole, whatever the YAML around the cuts: a load through a
// cache that saw the file before gives what a fresh load gives.
func TestPiecesParseAsTheWholeFile(t *testing.T) {
	a, b, c := capabilityDoc("a", "A"), capabilityDoc("b", "B"), capabilityDoc("c", "C")
	for _, tc := range []struct{ name, before, after string }{
		{"one document changed", "---\n" + a + "---\n" + b + "---\n" + c, "---\n" + a + "---\n" + capabilityDoc("b", "B2") + "---\n" + c},
		{"moved down", a + "---\n" + b, "# a comment\n\n" + a + "---\n" + b},
		{"a document inserted", a + "---\n" + b, a + "---\n" + c + "---\n" + b},
		{"a block scalar a marker ends", a + "---\n" + b, strings.Replace(a, "title: A", "title: |\n    A", 1) + "---\n" + b},
		{"a marker with a comment and a tab", a + "--- # next\n" + b + "---\t\n" + c, a + "--- # next\n" + capabilityDoc("b", "B2") + "---\t\n" + c},
		{"dashes that are no marker", a + "---\n" + strings.Replace(b, "title: B", "title: >\n  ----\n  B", 1), a + "---\n" + strings.Replace(b, "title: B", "title: >\n  ----\n  B2", 1)},
		{"carriage returns", strings.ReplaceAll(a+"---\n"+b, "\n", "\r\n"), strings.ReplaceAll(a+"---\n"+capabilityDoc("b", "B2"), "\n", "\r\n")},
		{"a directive", "%YAML 1.2\n---\n" + a + "---\n" + b, "%YAML 1.2\n---\n" + a + "---\n" + capabilityDoc("b", "B2")},
		{"a document end and a bare document", a + "...\n" + b, a + "...\n" + capabilityDoc("b", "B2")},
		{"an anchor", a + "---\n" + strings.Replace(b, "title: B", "title: &t B", 1), a + "---\n" + strings.Replace(b, "effect: read", "effect: read\n  description: *t", 1)},
		{"a quoted scalar cut by a marker", a + "---\n" + b, a + "---\n" + strings.Replace(b, "title: B", "title: \"B\n---\n  x\"", 1)},
		{"a problem in a kept document moved down", a + "---\n" + strings.Replace(b, "effect: read", "effect: maybe", 1),
			"# moved\n" + a + "---\n" + strings.Replace(b, "effect: read", "effect: maybe", 1)},
		{"a duplicate against a kept document", a + "---\n" + b, "\n\n" + a + "---\n" + b + "---\n" + strings.Replace(capabilityDoc("c", "C"), "tools.c", "tools.a", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write := func(rel, content string) {
				t.Helper()
				full := filepath.Join(root, rel)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(ConfigName, "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n")
			cache := &Cache{}
			cache.TrustChanges()
			for i, content := range []string{tc.before, tc.after} {
				write("registry/caps.yaml", content)
				cache.Changed("registry/caps.yaml", false)
				cached, cachedErr := LoadCached(workspacefs.OS{}, root, cache)
				fresh, freshErr := Load(workspacefs.OS{}, root)
				if got, want := summarize(cached, cachedErr), summarize(fresh, freshErr); got != want {
					t.Fatalf("load %d: through the cache\n%s\nfresh\n%s", i+1, got, want)
				}
			}
		})
	}
}

func TestCutDocuments(t *testing.T) {
	data := "# head\n---\na: 1\n--- # c\nb: |\n  x\n----\n---\t\nc: 3\n---"
	var got []string
	var lines []int
	for _, p := range cutDocuments([]byte(data)) {
		got = append(got, string(p.data))
		lines = append(lines, p.line)
	}
	want := []string{"# head\n", "---\na: 1\n", "--- # c\nb: |\n  x\n----\n", "---\t\nc: 3\n", "---"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pieces %q, want %q", got, want)
	}
	if wantLines := []int{1, 2, 4, 8, 10}; !equalInts(lines, wantLines) {
		t.Errorf("lines %v, want %v", lines, wantLines)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
