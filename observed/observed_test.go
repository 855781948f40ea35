package observed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

var dirs = []string{".claude/skills", ".qwen/skills", ".agents/skills"}

func stamp(t *testing.T, path string) []byte {
	t.Helper()
	b, err := banner.Stamp([]byte("---\nname: a\ndescription: d\n---\n\nbody\n"), "capability/x", path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestScanClassifiesOwnership(t *testing.T) {
	root := t.TempDir()
	owned := ".claude/skills/a/SKILL.md"
	testkit.WriteFile(t, root, owned, stamp(t, owned))
	edited := ".claude/skills/b/SKILL.md"
	testkit.WriteFile(t, root, edited, append(stamp(t, edited), "more\n"...))
	copied := ".claude/skills/c/SKILL.md"
	testkit.WriteFile(t, root, copied, stamp(t, owned))
	testkit.WriteFile(t, root, ".qwen/skills/d/SKILL.md", []byte("---\nname: d\n---\nmine\n"))
	crlf := ".qwen/skills/e/SKILL.md"
	testkit.WriteFile(t, root, crlf, []byte(strings.ReplaceAll(string(stamp(t, crlf)), "\n", "\r\n")))
	bom := ".agents/skills/f/SKILL.md"
	testkit.WriteFile(t, root, bom, append([]byte("\ufeff"), stamp(t, bom)...))
	testkit.WriteFile(t, root, ".agents/skills/g/README.md", []byte("not a skill file"))

	st, err := Scan(workspacefs.OS{}, root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Ownership{
		owned: Owned, edited: Modified, copied: Unowned,
		".qwen/skills/d/SKILL.md": Unowned, crlf: Unowned, bom: Unowned,
		// Where skillsync may write a skill, a file no manifest names is a person's.
		".agents/skills/g/README.md": Unowned,
	}
	for p, o := range want {
		if got, ok := st.Files[p]; !ok || got.Ownership != o {
			t.Errorf("%s: %v (present %v), want %v", p, got.Ownership, ok, o)
		}
	}
	if len(st.Files) != len(want) {
		t.Errorf("scan found %d files, want %d: %v", len(st.Files), len(want), st.Files)
	}
	if r := st.Files[copied].Reason; !strings.Contains(r, owned) {
		t.Errorf("a copy's reason should name the path its banner claims: %q", r)
	}
}

func TestScanNeverFollowsSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	testkit.WriteFile(t, outside, "x/SKILL.md", stamp(t, ".claude/skills/x/SKILL.md"))
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The whole target directory leads outside the workspace.
	if err := os.Symlink(outside, filepath.Join(root, ".claude/skills")); err != nil {
		t.Fatal(err)
	}
	// A skill directory and a SKILL.md that are symlinks.
	if err := os.MkdirAll(filepath.Join(root, ".qwen/skills/real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x"), filepath.Join(root, ".qwen/skills/linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x/SKILL.md"), filepath.Join(root, ".qwen/skills/real/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	st, err := Scan(workspacefs.OS{}, root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Blocked[".claude/skills"]; !ok {
		t.Errorf("symlinked target directory not blocked: %v", st.Blocked)
	}
	if _, ok := st.Files[".claude/skills/x/SKILL.md"]; ok {
		t.Error("scan read through a symlinked target directory")
	}
	if got := strings.Join(st.Escapes, ","); got != ".claude/skills,.qwen/skills/linked,.qwen/skills/real/SKILL.md" {
		t.Errorf("escapes = %q", got)
	}
	for _, p := range []string{".qwen/skills/linked/SKILL.md", ".qwen/skills/real/SKILL.md"} {
		if f := st.Files[p]; f.Ownership != Unowned || f.Bytes != nil || !strings.Contains(f.Reason, "symlink") {
			t.Errorf("%s: %+v, want unowned symlink never read", p, f)
		}
	}
}

func TestScanOddShapes(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, root, ".agents", []byte("a file where a directory belongs"))
	if err := os.MkdirAll(filepath.Join(root, ".qwen/skills/dir/SKILL.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, ".claude/skills/plain-file", []byte("x"))
	testkit.WriteFile(t, root, ".claude/skills/a/.skillsync-0000000000000009.tmp", []byte("---\n# Code"))
	testkit.WriteFile(t, root, ".claude/skills/a/.skillsync-000000000000000a.tmp", []byte("mine"))
	st, err := Scan(workspacefs.OS{}, root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Blocked[".agents/skills"]; !strings.Contains(r, "not a directory") {
		t.Errorf("blocked = %v", st.Blocked)
	}
	if f := st.Files[".qwen/skills/dir/SKILL.md"]; f.Ownership != Unowned || !strings.Contains(f.Reason, "not a regular file") {
		t.Errorf("SKILL.md directory: %+v", f)
	}
	if f := st.Files[".claude/skills/plain-file/SKILL.md"]; f.Ownership != Unowned {
		t.Errorf("file in place of a skill directory: %+v", f)
	}
	if len(st.TempFiles) != 1 || st.TempFiles[0] != ".claude/skills/a/.skillsync-0000000000000009.tmp" {
		t.Errorf("temp files = %v", st.TempFiles)
	}
}

func TestEvidence(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, root, "CLAUDE.md", []byte("x"))
	testkit.WriteFile(t, root, ".zed/settings.json", []byte("{}"))
	// Directories skillsync itself creates are no evidence.
	testkit.WriteFile(t, root, ".agents/skills/x/SKILL.md", []byte("x"))
	testkit.WriteFile(t, root, ".github/skills/x/SKILL.md", []byte("x"))
	testkit.WriteFile(t, root, ".gemini/skills/x/SKILL.md", []byte("x"))
	lookPath := func(name string) (string, error) {
		if name == "qwen" {
			return "/usr/bin/qwen", nil
		}
		return "", os.ErrNotExist
	}
	ws, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ev := Evidence(ws, lookPath)
	if strings.Join(ev["Claude Code"], ",") != "CLAUDE.md" || strings.Join(ev["Zed"], ",") != ".zed/" ||
		strings.Join(ev["Qwen Code"], ",") != "qwen on PATH" || len(ev["Antigravity"]) != 0 ||
		len(ev["Copilot CLI"]) != 0 || len(ev["Gemini CLI"]) != 0 {
		t.Errorf("evidence = %v", ev)
	}
}

// A target directory's git files are files, not skill directories: read like a
// SKILL.md when regular, only noted when a symlink (never followed, never an
// escape) or a directory; an interrupted write of one leaves a temp file that
// is found there too.
func TestScanTargetGitFiles(t *testing.T) {
	root := t.TempDir()
	owned := ".claude/skills/.gitattributes"
	testkit.WriteFile(t, root, owned, stamp(t, owned))
	testkit.WriteFile(t, root, ".qwen/skills/.gitignore", []byte("/mine\n"))
	testkit.WriteFile(t, root, ".qwen/skills/.gitattributes/SKILL.md", stamp(t, ".qwen/skills/.gitattributes/SKILL.md"))
	if err := os.Symlink(t.TempDir(), filepath.Join(root, ".claude/skills/.gitignore")); err != nil {
		t.Fatal(err)
	}
	temp := ".agents/skills/" + banner.NewTempName()
	testkit.WriteFile(t, root, temp, []byte("---\n# Code generated by skillsync"))

	st, err := Scan(workspacefs.OS{}, root, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if f := st.Files[owned]; f.Ownership != Owned {
		t.Errorf("%s: %+v", owned, f)
	}
	if f := st.Files[".qwen/skills/.gitignore"]; f.Ownership != Unowned || string(f.Bytes) != "/mine\n" {
		t.Errorf("a person's .gitignore: %+v", f)
	}
	if f := st.Files[".qwen/skills/.gitattributes"]; !f.Obstruction {
		t.Errorf("a directory where a git file goes: %+v", f)
	}
	if f := st.Files[".claude/skills/.gitignore"]; !f.Link {
		t.Errorf("a symlink where a git file goes: %+v", f)
	}
	if len(st.Files) != 4 || len(st.Escapes) != 0 {
		t.Errorf("found %v, escapes %v", st.Files, st.Escapes)
	}
	if strings.Join(st.TempFiles, " ") != temp {
		t.Errorf("temp files %v, want %s", st.TempFiles, temp)
	}
}
