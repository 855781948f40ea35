package docs

// The sessions test runs the sessions the documents show, so that no command
// or output in them can drift from what skillsync does.

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the outputs the documents show with what the commands print")

// sessions are the documents run as sessions: each marks where it starts with a
// line <!-- doctest: start=empty --> or start=<a directory of the repository>.
var sessions = []string{"getting-started.md", "workflow.md", "ownership.md", "registry.md", "clients.md", "user.md", "sources.md", "../README.md"}

// bin holds skillsync and the few programs a session may run, so that no agent
// client installed on the machine changes what init finds.
var bin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "skillsync-docs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	code := 1
	if err = setUpBin(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	testkit.RemoveBinaries()
	os.Exit(code)
}

func setUpBin(dir string) error {
	// Copied, not linked like the tools below: a tool may be left out where links
	// cannot be made, skillsync may not.
	skillsync, err := testkit.Program("./cmd/skillsync")
	if err != nil {
		return err
	}
	data, err := os.ReadFile(skillsync)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "skillsync"), data, 0o755); err != nil {
		return err
	}
	for _, tool := range []string{"sh", "git", "cat", "sed", "grep", "ls", "mkdir", "rm", "cp", "mv", "touch", "chmod", "sha256sum", "printf", "echo", "head", "test"} {
		if p, err := exec.LookPath(tool); err == nil {
			// Where links cannot be made (Windows without developer mode) the
			// tool is left out, and the sessions that need it skip.
			os.Symlink(p, filepath.Join(dir, tool))
		}
	}
	return nil
}

func TestSessions(t *testing.T) {
	if _, err := os.Stat(filepath.Join(bin, "git")); err != nil {
		t.Skip("needs git")
	}
	if _, err := os.Stat(filepath.Join(bin, "sh")); err != nil {
		t.Skip("the sessions are POSIX shell sessions")
	}
	for _, doc := range sessions {
		t.Run(filepath.Base(doc), func(t *testing.T) {
			data, err := os.ReadFile(doc)
			if err != nil {
				t.Fatal(err)
			}
			got, mismatches := run(t, string(data))
			if len(mismatches) == 0 {
				return
			}
			if !*update {
				t.Fatalf("%s shows what skillsync does not do (run go test ./docs -update after checking):\n%s", doc, strings.Join(mismatches, "\n"))
			}
			if err := os.WriteFile(doc, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// run runs the session of doc in a fresh directory and returns doc with the
// outputs it printed, and each place where they differ from what doc shows.
//
// A line <!-- doctest: start=… --> starts the session afresh in a new directory;
// a line <!-- doctest: $ command --> runs a command the reader need not see (the
// setup of an example), its output ignored.
func run(t *testing.T, doc string) (string, []string) {
	if !strings.Contains(doc, "<!-- doctest: start=") {
		t.Fatal("no <!-- doctest: start=… --> line")
	}
	var dir string
	env := []string{"PATH=" + bin, "HOME=" + t.TempDir(), "LANG=C", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=you", "GIT_AUTHOR_EMAIL=you@example.com", "GIT_COMMITTER_NAME=you", "GIT_COMMITTER_EMAIL=you@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"GORACE=" + os.Getenv("GORACE")}
	var out strings.Builder
	var mismatches []string
	inPlain := false
	lines := strings.SplitAfter(doc, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		out.WriteString(line)
		trimmed := strings.TrimLeft(line, " ")
		if start, ok := directive(trimmed, "start="); ok {
			dir = t.TempDir()
			if start != "empty" {
				if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", start))); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if command, ok := directive(trimmed, "$ "); ok {
			cmd := exec.Command("sh", "-c", command)
			cmd.Dir, cmd.Env = dir, env
			if out, err := cmd.CombinedOutput(); err != nil {
				mismatches = append(mismatches, fmt.Sprintf("line %d: the setup %q failed: %v\n%s", i+1, command, err, out))
			}
			continue
		}
		if dir == "" {
			continue // before the session starts
		}
		indent := line[:len(line)-len(trimmed)]
		info, fenced := strings.CutPrefix(strings.TrimRight(trimmed, "\n"), "```")
		if !fenced {
			continue
		}
		if info == "" {
			// A plain block is neither run nor written; one that opens with a
			// command is a session left out by mistake.
			if !inPlain && i+1 < len(lines) && strings.HasPrefix(strings.TrimPrefix(lines[i+1], indent), "$ ") {
				mismatches = append(mismatches, fmt.Sprintf("line %d: a session in a plain block: mark it console to have it run, or text if it cannot be", i+1))
			}
			inPlain = !inPlain
			continue
		}
		end := i + 1
		for end < len(lines) && strings.TrimRight(lines[end], "\n") != indent+"```" {
			end++
		}
		// A fence in a list item is indented, and so is everything in it.
		var body []string
		for _, l := range lines[i+1 : end] {
			body = append(body, strings.TrimPrefix(l, indent))
		}
		shown := strings.Join(body, "")
		switch {
		case strings.HasPrefix(info, "console"):
			var m []string
			shown, m = runConsole(t, dir, env, body)
			mismatches = append(mismatches, m...)
		case strings.Contains(info, " file="):
			name := info[strings.Index(info, " file=")+len(" file="):]
			testkit.WriteFile(t, dir, name, []byte(shown))
		}
		for _, l := range strings.SplitAfter(shown, "\n") {
			if l != "" {
				out.WriteString(indent + l)
			}
		}
		i = end - 1
	}
	return out.String(), mismatches
}

// directive is what follows prefix in a line <!-- doctest: <prefix>… -->.
func directive(line, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "<!-- doctest: "+prefix)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, " -->")
}

// runConsole runs each "$ command" of a console block, and returns the block as
// it should read and how it differs. A line "..." (indented or not) in what the
// block shows stands for any number of lines.
func runConsole(t *testing.T, dir string, env []string, body []string) (string, []string) {
	var shown strings.Builder
	var mismatches []string
	status := 0
	for i := 0; i < len(body); {
		command, ok := strings.CutPrefix(strings.TrimRight(body[i], "\n"), "$ ")
		if !ok {
			t.Fatalf("console block line %q is no $ command", body[i])
		}
		j := i + 1
		for j < len(body) && !strings.HasPrefix(body[j], "$ ") {
			j++
		}
		want := strings.Join(body[i+1:j], "")
		// Each command runs in a shell of its own that starts with the exit status
		// of the one before, so that a block can show it with echo $?.
		cmd := exec.Command("sh", "-c", fmt.Sprintf("(exit %d); %s", status, command))
		cmd.Dir, cmd.Env = dir, env
		got, _ := cmd.CombinedOutput()
		status = cmd.ProcessState.ExitCode()
		shown.WriteString(body[i])
		if matches(want, string(got)) {
			shown.WriteString(want)
		} else {
			shown.Write(got)
			mismatches = append(mismatches, fmt.Sprintf("$ %s\n--- shown\n%s--- printed\n%s", command, want, got))
		}
		i = j
	}
	return shown.String(), mismatches
}

func matches(want, got string) bool {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var match func(i, j int) bool
	match = func(i, j int) bool {
		switch {
		case i == len(w):
			return j == len(g)
		case strings.TrimSpace(w[i]) == "...":
			for k := j; k <= len(g); k++ {
				if match(i+1, k) {
					return true
				}
			}
			return false
		case j == len(g):
			return false
		}
		return strings.TrimRight(w[i], " ") == strings.TrimRight(g[j], " ") && match(i+1, j+1)
	}
	return match(0, 0)
}
