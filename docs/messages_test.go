package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// problemLine is a problem as the commands print it, quoted in a document:
// file:line[:column]: message.
var problemLine = regexp.MustCompile(`^\s*(?:skillsync: )?[\w./-]+:\d+(?::\d+)?: (.+)$`)

// seam is where a message is put together: the parts it fills in (quoted
// names, numbers, paths) and the joints between a message, its hint and the
// clauses the program writes separately.
var seam = regexp.MustCompile(`"[^"]*"|\S*[/\\.]\S*|\d+| \(|\)|; |: |\w+(?:, \w+)+`)

// verb is a format verb in a Go string.
var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

// Messages quoted in the documents outside the sessions that go test ./docs runs
// come from the code: every stretch of three or more plain words of each quoted
// problem lies within what some string of the program, its format verbs standing
// for anything, matches in the message. A message reworded in the code fails here
// until its quotations follow.
func TestQuotedProblemsComeFromTheCode(t *testing.T) {
	patterns := programPatterns(t)
	docs, _ := filepath.Glob("*.md")
	checked := 0
	for _, doc := range append(docs, "../README.md") {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range quotedLines(string(data)) {
			m := problemLine.FindStringSubmatch(line.text)
			if m == nil {
				continue
			}
			message := m[1]
			covered := make([]bool, len(message))
			for _, p := range patterns {
				for _, span := range p.FindAllStringIndex(message, -1) {
					for i := span[0]; i < span[1]; i++ {
						covered[i] = true
					}
				}
			}
			for _, run := range runs(message) {
				checked++
				start := strings.Index(message, run)
				for i := start; i < start+len(run); i++ {
					if !covered[i] {
						t.Errorf("%s:%d: %q is in no string of the program (quoted: %s)", doc, line.number, run, strings.TrimSpace(line.text))
						break
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d stretches of quoted problems; the pattern no longer finds them", checked)
	}
}

type quoted struct {
	number int
	text   string
}

// quotedLines are the lines of plain code blocks: not console sessions, which
// TestSessions runs, nor YAML, JSON or Go.
func quotedLines(doc string) []quoted {
	var out []quoted
	in, plain := false, false
	for n, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if in {
				in = false
				continue
			}
			in, plain = true, trimmed == "```" || trimmed == "```text"
			continue
		}
		if in && plain {
			out = append(out, quoted{n + 1, line})
		}
	}
	return out
}

// runs are the stretches of plain words, three or more, between the seams of a
// message.
func runs(message string) []string {
	var out []string
	for _, part := range seam.Split(message, -1) {
		part = strings.Trim(part, " ,;:()?")
		if len(strings.Fields(part)) >= 3 {
			out = append(out, part)
		}
	}
	return out
}

// programPatterns are the string constants of the program's packages, and of
// the YAML parser whose messages it passes on, with at least two words and ten
// characters of fixed text, as patterns in which each format verb stands for
// anything.
func programPatterns(t *testing.T) []*regexp.Regexp {
	yamlDir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.yaml.in/yaml/v3").Output()
	if err != nil {
		t.Fatal(err)
	}
	var out []*regexp.Regexp
	seen := map[string]bool{}
	fset := token.NewFileSet()
	walk := func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			fixed := verb.ReplaceAllString(s, " ")
			if err != nil || seen[s] || len(strings.Fields(fixed)) < 2 || len(strings.TrimSpace(fixed)) < 10 {
				return true
			}
			seen[s] = true
			parts := verb.Split(s, -1)
			for i, part := range parts {
				parts[i] = regexp.QuoteMeta(part)
			}
			// A verb at the end takes what follows, up to a hint in brackets.
			if parts[len(parts)-1] == "" {
				parts[len(parts)-1] = "[^(]*"
			}
			out = append(out, regexp.MustCompile(strings.Join(parts, ".+?")))
			return true
		})
		return nil
	}
	for _, root := range []string{"..", strings.TrimSpace(string(yamlDir))} {
		if err := filepath.WalkDir(root, walk); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
