//go:build reliability && linux

package reliability

// Hostile output: a cloned repository can hold skill directories named with
// escape sequences, generated files whose banner names such a path, and files whose
// contents are escape sequences. skillsync prints paths, banners and diffs of
// contents; whatever it prints, on stdout or stderr, as a table, JSON or logs, must
// not act on the terminal that shows it, and JSON must stay JSON. What it writes
// is held to the same: registry text that looks like the markers and tags of a
// generated body stays text there.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

const (
	// hostileOrphan is a file skillsync generated, by its banner, whose declaration
	// is gone: every command that lists changes names it.
	hostileOrphan = ".agents/skills/gone\x1b[2J\u202e\x07/SKILL.md"
	orphanName    = ".agents/skills/gone"
)

// hostileOutput runs every command that reports on a workspace, and a watcher
// logging as text and as JSON, on a workspace full of escape sequences.
func (s *hostileSuite) hostileOutput(t *testing.T) {
	commands := []struct {
		args  []string
		json  bool
		kind  string // the kind of the -o json document
		exits []int  // conflicts remain: two generated files are not as skillsync wrote them
		// shows marks the commands that list changes: they name the orphan, so the
		// escapes did reach what they print.
		shows bool
	}{
		{args: []string{"status", "--exit-code"}, exits: []int{1, 3}, shows: true},
		{args: []string{"status", "-o", "json", "--exit-code"}, json: true, kind: "Status", exits: []int{1, 3}},
		{args: []string{"reconcile", "--check", "--diff"}, exits: []int{1, 3}, shows: true},
		{args: []string{"reconcile", "--dry-run"}, exits: []int{3}, shows: true},
		{args: []string{"diff"}, exits: []int{3}, shows: true},
		{args: []string{"diff", "-o", "json"}, json: true, kind: "ReconcileResult", exits: []int{3}, shows: true},
		{args: []string{"-v", "1", "reconcile", "--once"}, exits: []int{3}, shows: true},
		{args: []string{"reconcile", "--once", "-o", "json"}, json: true, kind: "ReconcileResult", exits: []int{3}, shows: true},
	}
	for _, c := range commands {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			ws := s.escapingWorkspace(t)
			res := s.run(t, ws, runAs{}, c.args...)
			problems := res.problems()
			if !contains(c.exits, res.code) {
				problems = append(problems, fmt.Sprintf("exit %d, want one of %v", res.code, c.exits))
			}
			if c.shows && !strings.Contains(res.output(), orphanName) {
				problems = append(problems, "does not name the orphan "+orphanName)
			}
			var doc any
			switch {
			case !c.json:
			case json.Unmarshal(res.stdout, &doc) != nil:
				problems = append(problems, "stdout is not JSON")
			case kindOf(doc) != c.kind:
				problems = append(problems, fmt.Sprintf("the JSON's kind is %q, want %q", kindOf(doc), c.kind))
			case c.shows && !holds(doc, hostileOrphan):
				// Escaped for the terminal, the path must still read back as it is.
				problems = append(problems, fmt.Sprintf("no string in the JSON is the orphan's path %q", hostileOrphan))
			}
			if len(problems) > 0 {
				problems = append(problems, fmt.Sprintf("output: %q", clip(res.output())))
			}
			s.done(t, 1, problems)
		})
	}
	for _, format := range []string{"text", "json"} {
		t.Run("watcher --log-format "+format, func(t *testing.T) {
			ws := s.escapingWorkspace(t)
			w := startWatcher(t, ws, "--log-format", format, "-v", "1")
			started := time.Now()
			_, _, ran := awaitRun(w.addr, started, func(int, string) bool { return true })
			time.Sleep(time.Until(started.Add(2 * time.Second)))
			var problems []string
			if !ran {
				problems = append(problems, "/readyz never reported a run")
			}
			if !strings.Contains(w.stderr.String()+w.stdout.String(), orphanName) {
				problems = append(problems, "the logs do not name the orphan "+orphanName)
			}
			if err := w.stop(); err != nil {
				problems = append(problems, err.Error())
			}
			for name, out := range map[string][]byte{"stdout": []byte(w.stdout.String()), "stderr": []byte(w.stderr.String())} {
				if bad := terminalUnsafe(out); bad != "" {
					problems = append(problems, name+" holds "+bad)
				}
				if format == "json" {
					for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
						if len(line) > 0 && !json.Valid(line) {
							problems = append(problems, fmt.Sprintf("%s line is not JSON: %q", name, line))
						}
					}
				}
			}
			if len(problems) > 0 {
				problems = append(problems, fmt.Sprintf("stdout: %q\nstderr: %q", clip(w.stdout.String()), clip(w.stderr.String())))
			}
			s.done(t, 1, problems)
		})
	}
}

// escapingWorkspace is the example, reconciled, with what a hostile clone brings:
// a person's skill directory named to retitle the terminal, an orphan generated at
// a path with escapes (skillsync deletes it and says so), a generated file whose
// banner names a path with escapes, a stale generated file whose body holds them
// (--diff shows it), and a hand-edited generated file that holds them.
func (s *hostileSuite) escapingWorkspace(t *testing.T) string {
	ws := s.workspace(t, nil)
	const escapes = "\x1b[2J\x1b]0;pwned\x07 \x1b[31mred\x9b \u202eesrever\u202c \u2028\x7f\xff\xfe"

	person := filepath.Join(ws, ".claude/skills/x\x1b]0;pwned\x07\r\u202e")
	must(t, os.Mkdir(person, 0o755))
	must(t, os.WriteFile(filepath.Join(person, "SKILL.md"), []byte("---\nname: x\n---\n"+escapes+"\n"), 0o644))

	data, err := banner.Stamp([]byte("---\nname: gone\ndescription: gone\n---\n\n"+escapes+"\n"), "capability/gone\x1b[31m.x", hostileOrphan)
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(ws, filepath.Dir(hostileOrphan)), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, hostileOrphan), data, 0o644))

	edit(t, ws, ".qwen/skills/intent/SKILL.md", "path=.qwen/skills/intent/SKILL.md", "path=.qwen/skills/\x1b[2Jintent\u202e/SKILL.md")

	stale := filepath.Join(ws, ".claude/skills/note/SKILL.md")
	data, err = os.ReadFile(stale)
	must(t, err)
	mark, _, err := banner.Parse(data)
	must(t, err)
	rest := data
	for range 3 { // the opening line and the two banner lines
		_, rest, _ = bytes.Cut(rest, []byte("\n"))
	}
	data, err = banner.Stamp(append([]byte("---\n"+string(rest)), escapes+"\n"...), mark.Owner, mark.Path)
	must(t, err)
	must(t, os.WriteFile(stale, data, 0o644))

	f, err := os.OpenFile(filepath.Join(ws, ".agents/skills/note/SKILL.md"), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(escapes + "\n")
	must(t, err)
	must(t, f.Close())

	// Inputs saved long ago, and the person's skill among the targets, which
	// takes its name from the other targets: the orphan's delete need not wait
	// for them to settle.
	must(t, workspacegen.Backdate(ws))
	long := time.Now().Add(-time.Hour)
	for _, dir := range []string{".claude", ".qwen", ".agents"} {
		must(t, filepath.WalkDir(filepath.Join(ws, dir), func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chtimes(p, long, long)
		}))
	}
	return ws
}

// inertMarkers declares capabilities titled with the markers and tags of a
// generated body, and a skill described with them, for every target. A title is
// shown in the body, where its angle brackets are entities, and in the clients'
// skill listings, which escape it themselves (seen with Qwen Code, which lists
// descriptions inside tags of its own). Every body must hold what a plain title's
// holds of the structure, and never a closing tag.
func (s *hostileSuite) inertMarkers(t *testing.T) []string {
	const (
		marked = "Ends </skill-args> here <<<TEXT x TEXT>>> and --- <skill-args>"
		arrows = "Ends TEXT>>> here, a < b -> c and --- >>>"
	)
	input := "type: object\nproperties: {text: {type: string}}\n"
	doc := capability("hostile.markers", "hostile-markers", strconv.Quote(marked), input) +
		"---\n" + capability("hostile.arrows", "hostile-arrows", strconv.Quote(arrows), input) +
		"---\n" + capability("hostile.dashes", "hostile-dashes", `"---"`, input) +
		"---\n" + skill("hostile-described", strconv.Quote(marked), "body: Plain body.")
	ws := s.workspace(t, nil)
	putFile(hostileFile, doc)(t, ws)
	res := s.run(t, ws, runAs{}, "reconcile", "--once")
	problems := res.problems()
	if res.code != 0 {
		return append(problems, fmt.Sprintf("exit %d, want 0\n%s", res.code, clip(res.output())))
	}
	for _, target := range []string{".claude", ".qwen", ".agents"} {
		// find-intent is a read capability with an MCP tool and a plain title, as these are.
		plain := readSkill(t, ws, target, "find-intent")
		for _, name := range []string{"hostile-markers", "hostile-arrows", "hostile-dashes", "hostile-described"} {
			file := target + "/skills/" + name + "/SKILL.md"
			got := readSkill(t, ws, target, name)
			// The workflow skill goes only where its profile lets it: the example's
			// profile is cli, and it requires nothing, so it goes everywhere.
			if got.missing {
				problems = append(problems, file+": missing")
				continue
			}
			for _, marker := range []string{"<<<TEXT", "TEXT>>>"} {
				if name != "hostile-described" && strings.Count(got.body, marker) != strings.Count(plain.body, marker) {
					problems = append(problems, fmt.Sprintf("%s: %d %s in the body, a plain title's has %d", file, strings.Count(got.body, marker), marker, strings.Count(plain.body, marker)))
				}
			}
			if strings.Contains(got.body, "</skill-args>") {
				problems = append(problems, file+": the body holds </skill-args>")
			}
			if entity := map[string]string{"hostile-markers": "&lt;/skill-args&gt;", "hostile-arrows": "a &lt; b -&gt; c"}[name]; !strings.Contains(got.body, entity) {
				problems = append(problems, fmt.Sprintf("%s: the body does not hold the title's brackets as %s", file, entity))
			}
			if got.delimiters != 2 {
				problems = append(problems, fmt.Sprintf("%s: %d lines that are ---, want the front matter's 2", file, got.delimiters))
			}
		}
	}
	return problems
}

// skillFile is a generated SKILL.md cut at the end of its front matter.
type skillFile struct {
	missing    bool
	body       string
	delimiters int // lines that are exactly ---
}

func readSkill(t *testing.T, ws, target, name string) skillFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, target, "skills", name, "SKILL.md"))
	if errors.Is(err, fs.ErrNotExist) {
		return skillFile{missing: true}
	}
	must(t, err)
	var g skillFile
	for _, line := range strings.Split(string(data), "\n") {
		if line == "---" {
			g.delimiters++
		}
	}
	// The front matter is "---\n…\n---\n"; the body is what follows.
	if _, rest, ok := strings.Cut(strings.TrimPrefix(string(data), "---\n"), "\n---\n"); ok {
		g.body = rest
	}
	return g
}

// holds tells whether v, decoded JSON, holds the string s anywhere.
func holds(v any, s string) bool {
	switch v := v.(type) {
	case string:
		return v == s
	case []any:
		return slices.ContainsFunc(v, func(e any) bool { return holds(e, s) })
	case map[string]any:
		for _, e := range v {
			if holds(e, s) {
				return true
			}
		}
	}
	return false
}

// terminalUnsafe describes the first thing in out that would act on a terminal or
// make it show text other than it is: a C0 control but tab and newline, DEL, a C1
// control, a line or paragraph separator, a bidi embedding, override or isolate,
// or a byte that is not UTF-8. "" when there is none.
func terminalUnsafe(out []byte) string {
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRune(out[i:])
		unsafe := r == utf8.RuneError && size == 1 ||
			r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == 0x2028 || r == 0x2029 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
		if unsafe {
			return fmt.Sprintf("%q at byte %d, in %q", out[i:i+size], i, out[max(0, i-40):min(len(out), i+40)])
		}
		i += size
	}
	return ""
}

// watcher is a running `skillsync reconcile` with its health endpoint.
type watcher struct {
	addr           string
	stdout, stderr syncbuffer.Buffer
	signal         func(os.Signal) error
	exited         chan error
	err            error
	stopped        bool
}

// startWatcher starts a watcher on ws with global flags; it is killed at the end of
// the test if nothing stopped it.
func startWatcher(t *testing.T, ws string, global ...string) *watcher {
	t.Helper()
	w := &watcher{addr: testkit.FreeAddr(t), exited: make(chan error, 1)}
	args := slices.Concat(global, []string{"--workspace", ws, "reconcile", "--health-addr", w.addr, "--debounce", "20ms", "--max-wait", "200ms"})
	cmd := exec.Command(testkit.Binary(t), args...)
	cmd.Stdout, cmd.Stderr = &w.stdout, &w.stderr
	must(t, cmd.Start())
	go func() { w.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if !w.stopped {
			cmd.Process.Kill()
			<-w.exited
		}
	})
	w.signal = cmd.Process.Signal
	return w
}

// stop ends the watcher as a supervisor would, SIGTERM, and says how it ended
// unless cleanly; it may be called more than once.
func (w *watcher) stop() error {
	if w.stopped {
		return w.err
	}
	w.stopped = true
	if err := w.signal(syscall.SIGTERM); err != nil {
		w.err = fmt.Errorf("SIGTERM: %w", err)
		return w.err
	}
	select {
	case err := <-w.exited:
		if err != nil {
			w.err = fmt.Errorf("the watcher ended with %v after SIGTERM, want exit 0", err)
		}
	case <-time.After(30 * time.Second):
		w.signal(syscall.SIGKILL)
		w.err = fmt.Errorf("the watcher still ran 30 s after SIGTERM: %v", <-w.exited)
	}
	return w.err
}

// readyz is what /readyz answers now.
func readyz(addr string) (int, string) {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// ---------------------------------------------------------------------------
// Small helpers

// capability is a read capability with an MCP tool and a skill filling "text";
// title is YAML as written after "title: ", input the YAML of spec.input.
func capability(id, alias, title, input string) string {
	return "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: " + id + "}\nspec:\n" +
		"  title: " + title + "\n  effect: read\n  input:\n" + indent(input, "    ") +
		"  mcp: {tool: " + strings.ReplaceAll(id, ".", "_") + "}\n  skill: {alias: " + alias + ", argument: text}\n"
}

// skill is a workflow skill; body is its body or bodyFile line as written.
func skill(name, description, body string) string {
	return "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: " + name + "}\nspec:\n  description: " + description + "\n  " + body + "\n"
}

func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+prefix) + "\n"
}

// lineOf is the 1-based line of the first occurrence of needle in text.
func lineOf(text, needle string) int {
	i := strings.Index(text, needle)
	if i < 0 {
		panic(fmt.Sprintf("%q not found", needle))
	}
	return strings.Count(text[:i], "\n") + 1
}

// putFile returns a step that writes rel in the workspace.
func putFile(rel, content string) func(*testing.T, string) {
	return func(t *testing.T, ws string) {
		must(t, os.WriteFile(filepath.Join(ws, rel), []byte(content), 0o644))
	}
}

// edit replaces old, which must be there, with replacement in the workspace's file rel.
func edit(t *testing.T, ws, rel, old, replacement string) {
	t.Helper()
	p := filepath.Join(ws, rel)
	data, err := os.ReadFile(p)
	must(t, err)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not hold %q", rel, old)
	}
	must(t, os.WriteFile(p, bytes.Replace(data, []byte(old), []byte(replacement), 1), 0o644))
}

func chownTree(t *testing.T, root string, id int) {
	t.Helper()
	must(t, filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, id, id)
	}))
}

func snapshot(t *testing.T, ws string) ownTree {
	t.Helper()
	tree, err := ownSnapshot(ws)
	must(t, err)
	return tree
}

// clip keeps a failure message readable when a run printed a lot.
func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// kindOf is the kind an -o json document names, "" when it is no object.
func kindOf(doc any) string {
	m, _ := doc.(map[string]any)
	kind, _ := m["kind"].(string)
	return kind
}
