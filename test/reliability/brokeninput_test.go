//go:build reliability && linux

package reliability

// Broken input never prunes. A workspace in sync gets each input file
// (skillsync.yaml, registry/*.yaml) cut at every tenth byte, made invalid YAML,
// given a duplicate alias, emptied or replaced by a directory. `reconcile --once`,
// `--check` and a running watcher must refuse it as invalid input naming file:line
// and write and delete nothing, or, for a cut that still parses and deletes nothing
// (a title cut short), may apply it, deleting nothing; a cut where a document
// ended removed whole documents, an ordinary edit that may delete. A cut at the end of a line
// leaves valid YAML that declares less; only the record of the last apply
// (.skillsync/last-applied.json) tells it from a deliberate removal, so this suite
// is what shows the record works.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/internal/testkit"
)

// breakage is one way to break one input file.
type breakage struct {
	file string // workspace-relative and slash-separated, as skillsync names it
	what string
	line int // the line the message must name as file:line; 0 when there is none
	// opens marks a bracket left open on line: the parser may stop on the next
	// line, at the token where a comma or the bracket was due, and the message
	// then names line as where the bracket opens.
	opens bool
	apply func(path string) error
	// parses marks a cut, which may leave valid YAML that deletes nothing and may
	// then be applied; every other breakage must be refused.
	parses bool
	// wholeDocuments marks a cut where a document ended: an edit that removed
	// the documents after it, applied with its deletes once the inputs settle.
	wholeDocuments bool
}

// namedIn tells whether out names the file, and as file:line: when it has a line.
func (b breakage) namedIn(out string) bool {
	if b.line == 0 {
		return strings.Contains(out, b.file)
	}
	return strings.Contains(out, b.where()+":") ||
		b.opens && strings.Contains(out, b.file+":") && strings.Contains(out, fmt.Sprintf(" opened at line %d,", b.line))
}

func (b breakage) where() string {
	if b.line == 0 {
		return b.file
	}
	return fmt.Sprintf("%s:%d", b.file, b.line)
}

// brokenSuite is the workspace, its in-sync state and the failures found so far.
type brokenSuite struct {
	t        *testing.T
	ws       string
	inSync   ownTree
	original map[string][]byte // the input files' bytes in sync
	cases    int
	failed   int
	applied  int      // cuts that parsed, deleted nothing and were applied
	problems []string // what the case under way found wrong
}

func TestBrokenInput(t *testing.T) {
	s := &brokenSuite{t: t, ws: example(t, t.TempDir()), original: map[string][]byte{}}
	if code, out := runOnce(t, s.ws); code != 0 {
		t.Fatalf("first reconcile of the example: exit %d\n%s", code, out)
	}
	s.inSync = s.snapshot()
	registryFiles, err := filepath.Glob(filepath.Join(s.ws, "registry", "*.yaml"))
	if err != nil || len(registryFiles) == 0 {
		t.Fatalf("no registry files in the example: %v", err)
	}
	inputs := []string{"skillsync.yaml"}
	for _, f := range registryFiles {
		inputs = append(inputs, "registry/"+filepath.Base(f))
	}
	for _, file := range inputs {
		data, err := os.ReadFile(filepath.Join(s.ws, file))
		must(t, err)
		s.original[file] = data
	}

	for _, file := range inputs {
		for i, cut := range s.truncations(file) {
			s.once(cut)
			if i%5 == 0 { // every fiftieth byte: --check too
				s.once(cut, "--check")
			}
		}
		for _, b := range s.malformed(file) {
			s.once(b)
		}
	}

	// The watcher: every cut of the largest registry file (about 7 s), or a seeded
	// sample of RELIABILITY_BROKEN_WATCH of them.
	cuts := s.truncations("registry/intents.yaml")
	if n := count("RELIABILITY_BROKEN_WATCH", len(cuts)); n < len(cuts) {
		sd := seed(1)
		t.Logf("watcher: %d of %d cuts of registry/intents.yaml, seed %d (RELIABILITY_SEED=%d RELIABILITY_BROKEN_WATCH=%d to replay)", n, len(cuts), sd, sd, n)
		rng := rand.New(rand.NewPCG(uint64(sd), 3))
		rng.Shuffle(len(cuts), func(i, j int) { cuts[i], cuts[j] = cuts[j], cuts[i] })
		cuts = cuts[:n]
	}
	s.watch(cuts)

	// Back where it started: one more run finds nothing to do and changes nothing.
	before := s.snapshot()
	code, out := runOnce(t, s.ws)
	s.expect(code == 0, "exit %d, want 0\n%s", code, out)
	now := s.snapshot()
	s.expectSame(before, now, "by the run")
	s.expectSameContent(s.inSync, now, "since the start")
	s.done("a last --once on the restored workspace")
	t.Logf("%d cuts parsed, deleted nothing and were applied; every other breakage was refused", s.applied)

	report("broken input never prunes", s.cases, s.failed,
		"cut at every 10th byte, invalid YAML, duplicate alias, empty, a directory: exit 2 naming file:line and nothing changed, or (a cut that deletes nothing) applied without removing a file, or (a cut where a document ended) applied (--once, --check, watcher)")
}

// truncations cuts file at every tenth byte offset before its end, 0 (empty) included.
func (s *brokenSuite) truncations(file string) []breakage {
	data := s.original[file]
	var cuts []breakage
	for off := 0; off < len(data); off += 10 {
		head := data[:off]
		whole := bytes.HasSuffix(head, []byte("\n---\n")) || bytes.Contains(head, []byte("\nkind: ")) && bytes.HasSuffix(head, []byte("\n")) && bytes.HasPrefix(data[off:], []byte("---\n"))
		cuts = append(cuts, breakage{file: file, what: fmt.Sprintf("cut after %d bytes", off),
			line:   bytes.Count(head, []byte("\n")) + 1,
			apply:  func(p string) error { return os.Truncate(p, int64(off)) },
			parses: true, wholeDocuments: whole})
	}
	return cuts
}

// malformed are the other broken forms of file: two YAML syntax errors in its
// middle, an alias another capability has (registry files only), an empty file and
// a directory in its place.
func (s *brokenSuite) malformed(file string) []breakage {
	data := s.original[file]
	mid := bytes.Count(data, []byte("\n"))/2 + 1
	rewrite := func(content []byte) func(string) error {
		return func(p string) error { return os.WriteFile(p, content, 0o644) }
	}
	out := []breakage{
		{file: file, what: "tab-indented line", line: mid, apply: rewrite(insertLine(data, mid, "\tbroken: true"))},
		{file: file, what: "unclosed flow sequence", line: mid, opens: true, apply: rewrite(insertLine(data, mid, "broken: [a, b"))},
		{file: file, what: "empty file", line: 1, apply: rewrite(nil), parses: true}, // a cut at byte 0: the record names line 1
		{file: file, what: "directory in its place", apply: func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o755)
		}},
	}
	if strings.HasPrefix(file, "registry/") {
		taken := "intent" // declared in registry/intents.yaml
		if file == "registry/intents.yaml" {
			taken = "note" // declared in registry/journal.yaml
		}
		// The message names both declarations, so it names the new one: its alias is on
		// the last line of the file.
		dup := append(slices.Clip(data), duplicateAlias(taken)...)
		out = append(out, breakage{file: file, what: "duplicate alias " + taken, line: bytes.Count(dup, []byte("\n")), apply: rewrite(dup)})
	}
	return out
}

// duplicateAlias is a valid Capability document but for its alias, which is taken;
// the alias is on its last line.
func duplicateAlias(alias string) string {
	return `---
apiVersion: skillsync/v1
kind: Capability
metadata: {name: broken.duplicate}
spec:
  title: A second capability under a taken alias
  effect: read
  input: {type: object, properties: {text: {type: string}}}
  mcp: {tool: broken_duplicate}
  skill: {alias: ` + alias + `, argument: text}
`
}

// insertLine puts text before line n (1-based) of data.
func insertLine(data []byte, n int, text string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	lines = slices.Insert(lines, n-1, text+"\n")
	return []byte(strings.Join(lines, ""))
}

// once breaks the file, runs reconcile --once (with args) and restores the file.
// The run refuses the file (exit 2 naming file:line, nothing changed) or, when what
// is left parses and deletes nothing, applies it (exit 0, no file removed).
func (s *brokenSuite) once(b breakage, args ...string) {
	s.breakFile(b)
	before := s.snapshot()
	code, out := runOnce(s.t, s.ws, args...)
	after := s.snapshot()
	check := slices.Contains(args, "--check")
	applied := false
	switch {
	case code == 2:
		s.expect(b.namedIn(out), "exit 2 without naming %s\n%s", b.where(), out)
		s.expectSame(before, after, "by the run")
	case b.parses && check && (code == 0 || code == 1):
		s.expectSame(before, after, "by --check")
	case b.parses && !check && code == 0:
		s.applied++
		applied = true
		if !b.wholeDocuments {
			s.expectNoRemoval(before, after, "by the run")
		}
	default:
		s.expect(false, "exit %d, want 2 naming %s (or, for a cut that deletes nothing, 0)\n%s", code, b.where(), out)
	}
	s.restore(b.file)
	if applied {
		if code, out := runOnce(s.t, s.ws); code != 0 {
			s.expect(false, "converging the restored file: exit %d\n%s", code, out)
		}
		now := s.snapshot()
		s.expectSameContent(s.inSync, now, "once restored and converged")
		s.inSync = now
	} else if !s.expectSame(s.inSync, s.snapshot(), "once restored") {
		// Converge again, so the cases after this one do not fail for it.
		runOnce(s.t, s.ws)
		s.inSync = s.snapshot()
	}
	s.done(strings.TrimSpace(fmt.Sprintf("%s %s, reconcile --once %s", b.file, b.what, strings.Join(args, " "))))
}

// expectNoRemoval notes every path the run removed: a cut may update, never delete.
func (s *brokenSuite) expectNoRemoval(before, after ownTree, when string) {
	for p := range before {
		// The record keeps the bytes only of the files it lists.
		if _, ok := after[p]; !ok && p != state.LockFile && p != state.IndexFile && !strings.HasPrefix(p, state.AppliedDir+"/") {
			s.problems = append(s.problems, fmt.Sprintf("%s removed %s", when, p))
		}
	}
}

// expectSameContent compares two snapshots by what each path holds (type, bytes,
// mode), not by when it was written: a cut that was applied and then restored
// rewrites files with the bytes they had.
func (s *brokenSuite) expectSameContent(want, got ownTree, when string) {
	var changes []string
	for _, p := range ownSorted(want) {
		w, ok := got[p]
		switch {
		case p == state.LockFile || p == state.AppliedFile || p == state.IndexFile || strings.HasPrefix(p, state.AppliedDir+"/"):
		case !ok:
			changes = append(changes, p+": removed")
		case w.mode != want[p].mode || w.sum != want[p].sum || w.link != want[p].link:
			changes = append(changes, p+": holds something else")
		}
	}
	for _, p := range ownSorted(got) {
		if _, ok := want[p]; !ok && p != state.IndexFile && !strings.HasPrefix(p, state.AppliedDir+"/") {
			changes = append(changes, p+": created")
		}
	}
	if len(changes) > 0 {
		s.problems = append(s.problems, fmt.Sprintf("the tree differs %s:\n    %s", when, strings.Join(changes, "\n    ")))
	}
}

// watch runs one watcher through the cuts: each one is reported on /readyz (503,
// naming file:line) with nothing written, and the restored file makes it ready again.
func (s *brokenSuite) watch(cuts []breakage) {
	t := s.t
	addr := testkit.FreeAddr(t)
	var logs bytes.Buffer
	w := exec.Command(testkit.Binary(t), "--workspace", s.ws, "reconcile", "--health-addr", addr, "--debounce", "20ms", "--max-wait", "200ms")
	w.Stdout, w.Stderr = &logs, &logs
	must(t, w.Start())
	exited := make(chan error, 1)
	go func() { exited <- w.Wait() }()
	stopped := false
	defer func() { // a failed setup must not leave the watcher running
		if !stopped {
			w.Process.Kill()
			<-exited
		}
	}()
	awaitReady(t, addr)
	// The watcher writes its pid into the lock file and nothing else.
	watched := s.snapshot()
	s.expectSame(except(s.inSync, state.LockFile), except(watched, state.LockFile), "by its first run (.skillsync/lock aside)")
	s.done("a watcher started on the workspace in sync")

	for _, c := range cuts {
		before := s.snapshot()
		s.breakFile(c)
		// Every run that starts from now on reads the cut file: the first one reported
		// is the verdict. A refused cut is reported on /readyz with its file:line and
		// changes nothing; one that parses and deletes nothing may be applied.
		status, body, _ := awaitRun(addr, time.Now(), func(int, string) bool { return true })
		switch {
		case status == http.StatusServiceUnavailable:
			s.expect(c.namedIn(body), "/readyz after the cut: 503 without naming %s: %s", c.where(), body)
			s.expectSame(except(watched, c.file), except(s.snapshot(), c.file), "by the watcher (the cut file aside)")
		case c.wholeDocuments:
			s.applied++
		case status == http.StatusOK && !strings.Contains(body, `"delete":0`):
			s.expect(false, "/readyz after the cut reports deletes: %s", body)
		default:
			s.applied++
			s.expectNoRemoval(before, s.snapshot(), "the watcher")
		}
		// Restoring passes through shorter contents (refused) before the whole file.
		restored := time.Now()
		s.restore(c.file)
		status, body, ok := awaitRun(addr, restored, func(status int, body string) bool {
			return status == http.StatusOK && strings.Contains(body, `"result":"converged"`)
		})
		s.expect(ok, "/readyz never converged again once the file was restored; last answer: %d %s", status, body)
		now := s.snapshot()
		s.expectSameContent(watched, now, "once restored")
		watched = now
		s.done(fmt.Sprintf("%s %s, watcher", c.file, c.what))
	}

	must(t, w.Process.Signal(syscall.SIGTERM))
	var err error
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		w.Process.Kill()
		err = fmt.Errorf("still running 30 s after SIGTERM: %w", <-exited)
	}
	stopped = true
	s.expect(err == nil, "%v, want exit 0\n%s", err, logs.String())
	s.done("the watcher stopped with SIGTERM")
}

// awaitRun polls /readyz, for at most 30 s, until it reports a run that started
// after since and satisfies until; it returns the last status and body.
func awaitRun(addr string, since time.Time, until func(status int, body string) bool) (int, string, bool) {
	status, last := 0, "no answer"
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			last = err.Error()
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status, last = resp.StatusCode, string(body)
		var ready struct {
			LastRun *struct{ Time time.Time } `json:"lastRun"`
		}
		if json.Unmarshal(body, &ready) == nil && ready.LastRun != nil && ready.LastRun.Time.After(since) && until(status, last) {
			return status, last, true
		}
	}
	return status, last, false
}

// breakFile applies b; failing to is a failure of the test, not of skillsync.
func (s *brokenSuite) breakFile(b breakage) {
	if err := b.apply(filepath.Join(s.ws, filepath.FromSlash(b.file))); err != nil {
		s.t.Fatalf("break %s (%s): %v", b.file, b.what, err)
	}
}

// restore puts back the file's bytes, mode and mtime and its directory's mtime, so
// the tree is again exactly the snapshot taken in sync.
func (s *brokenSuite) restore(file string) {
	p := filepath.Join(s.ws, filepath.FromSlash(file))
	entry := s.inSync[file]
	// Rewritten in place, as editors that truncate do (what a watcher reads
	// meanwhile is a prefix of the record, refused); removed first only when a case
	// put a directory there, since a registry file that is gone for a moment is an
	// ordinary removal to skillsync, and the watcher would prune.
	var err error
	if info, statErr := os.Lstat(p); statErr == nil && info.IsDir() {
		err = os.RemoveAll(p)
	}
	if err == nil {
		err = os.WriteFile(p, s.original[file], entry.mode.Perm())
	}
	if err == nil {
		err = os.Chtimes(p, time.Time{}, entry.mtime)
	}
	if dir, ok := s.inSync[path.Dir(file)]; ok && err == nil {
		err = os.Chtimes(filepath.Dir(p), time.Time{}, dir.mtime)
	}
	if err != nil {
		s.t.Fatalf("restore %s: %v", file, err)
	}
}

// except leaves one entry out of a snapshot: the file a case broke, or the lock
// file, which records the pid of the last holder.
func except(tree ownTree, file string) ownTree {
	tree = maps.Clone(tree)
	delete(tree, file)
	return tree
}

func (s *brokenSuite) snapshot() ownTree {
	tree, err := ownSnapshot(s.ws)
	if err != nil {
		s.t.Fatalf("snapshot: %v", err)
	}
	return tree
}

// expectSame notes every entry that differs (bytes, mode, mtime, created, removed).
func (s *brokenSuite) expectSame(want, got ownTree, when string) bool {
	changes := ownChanges(want, got)
	if len(changes) > 0 {
		s.problems = append(s.problems, fmt.Sprintf("the tree changed %s:\n    %s", when, strings.Join(changes, "\n    ")))
	}
	return len(changes) == 0
}

func (s *brokenSuite) expect(ok bool, format string, args ...any) {
	if !ok {
		s.problems = append(s.problems, fmt.Sprintf(format, args...))
	}
}

// done ends a case; it failed when it found anything wrong.
func (s *brokenSuite) done(name string) {
	s.cases++
	if len(s.problems) > 0 {
		s.failed++
		s.t.Errorf("%s:\n  %s", name, strings.Join(s.problems, "\n  "))
		s.problems = nil
	}
}
