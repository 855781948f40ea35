package watch

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/property"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestWatchDirs(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".claude/skills/intent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".agents")); err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Load(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// .qwen/skills and .skillsync do not exist: their nearest parent is the root.
	// .agents is a symlink: neither it nor anything under it is watched.
	want := []string{".", ".claude/skills", ".claude/skills/intent", "registry", "skills"}
	if diff := cmp.Diff(want, watchDirs(r, registry.ConfigName, reg)); diff != "" {
		t.Errorf("watch set (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".", ".claude/skills", ".claude/skills/intent"}, watchDirs(r, registry.ConfigName, nil)); diff != "" {
		t.Errorf("watch set without a registry (-want +got):\n%s", diff)
	}
}

// The user workspace's watch set is its config directory, the registry in it
// and the directories on the way to them, and the personal skill directories:
// the rest of the home directory (a checkout, a cache, another program's
// config) is never watched, though the home directory itself is, as the
// nearest parent of a personal directory not made yet.
func TestUserWorkspaceWatchesNoMoreOfHome(t *testing.T) {
	home := t.TempDir()
	config := ".config/skillsync/" + registry.ConfigName
	for rel, content := range map[string]string{
		config:                                 "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n",
		".config/skillsync/registry/caps.yaml": "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: mine}\nspec: {description: Mine. Use when asked., body: Do it.}\n",
		".config/other-app/settings.json":      "{}",
		".claude/skills/mine/SKILL.md":         "hand-written",
		"src/project/skillsync.yaml":           "",
		"src/project/deep/er/file.go":          "package er",
		".cache/thousands/of/files":            "",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := registry.LoadConfig(workspacefs.OS{}, home, config, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := workspacefs.OS{}.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// .config holds the config directory, which a rename there could move.
	want := []string{".", ".claude/skills", ".claude/skills/mine", ".config", ".config/skillsync", ".config/skillsync/registry"}
	if diff := cmp.Diff(want, watchDirs(r, config, reg)); diff != "" {
		t.Errorf("watch set (-want +got):\n%s", diff)
	}
	in := inputsOf(r, reg)
	for rel, want := range map[string]bool{config: true, ".config/skillsync/registry/new.yaml": true, ".config/other-app/settings.json": false, ".bash_history": false} {
		if got := in.holds(rel); got != want {
			t.Errorf("holds(%s) = %v, want %v", rel, got, want)
		}
	}
}

// logLines is a slog handler that keeps every message.
type logLines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logLines) WithGroup(string) slog.Handler            { return l }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.msgs = append(l.msgs, r.Message)
	l.mu.Unlock()
	return nil
}
func (l *logLines) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

// TestWatchRetriesAfterAnIOFailure makes a target directory immutable, so every
// create in it fails, and expects the watcher to retry on its own and converge once
// the directory is writable again. Polling once an hour stands in for a watcher that
// sees nothing: only the retry can wake the loop.
func TestWatchRetriesAfterAnIOFailure(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	skills := filepath.Join(root, ".qwen/skills")
	if err := os.MkdirAll(skills, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+i", skills).CombinedOutput(); err != nil {
		t.Skipf("cannot make a directory immutable here (chattr +i): %v %s", err, out)
	}
	defer exec.Command("chattr", "-i", skills).Run()

	logs := &logLines{}
	tracker := &Tracker{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root}, Debounce: 10 * time.Millisecond,
			MaxWait: 50 * time.Millisecond, Poll: time.Hour, Health: tracker, Log: slog.New(logs)})
	}()
	await(t, func() bool { return logs.count("retrying after failure") >= 1 })
	if tracker.Ready() {
		t.Error("ready after a failed run")
	}
	if out, err := exec.Command("chattr", "-i", skills).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i: %v %s", err, out)
	}
	await(t, func() bool {
		_, err := os.Stat(filepath.Join(skills, "intent/SKILL.md"))
		return err == nil
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if logs.count("change failed") == 0 {
		t.Error("the failed change was not logged")
	}
}

// await waits for cond; the limit bounds a condition and measures nothing.
func await(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition never came true")
}

// A run counts what it did, not what it planned, and names its result as the
// health endpoints read it.
func TestRunReports(t *testing.T) {
	refused := controller.Outcome{Plan: plan.Plan{Refused: "empty", Changes: []plan.Change{{Action: plan.Delete}}}}
	if r := runReport(refused, time.Now(), time.Millisecond); r.Result != Refused || r.Counts["delete"] != 0 {
		t.Errorf("refused plan: report=%+v", r)
	}
	failed := controller.Outcome{Plan: plan.Plan{Changes: []plan.Change{{Path: "a", Action: plan.Create}, {Path: "b", Action: plan.Create}}},
		Applied: []apply.Applied{{Change: &plan.Change{Path: "a", Action: plan.Create}}, {Change: &plan.Change{Path: "b", Action: plan.Create}, Err: os.ErrPermission}},
		Err:     os.ErrPermission}
	if r := runReport(failed, time.Now(), time.Millisecond); r.Result != Failed || r.Counts["create"] != 1 {
		t.Errorf("failed run: report=%+v, want failed and 1 create done", r)
	}
	if r := runReport(controller.Outcome{Plan: plan.Plan{Changes: []plan.Change{{Action: plan.Conflict}}}}, time.Now(), time.Millisecond); r.Result != Conflicts {
		t.Errorf("conflicts kept: result=%s", r.Result)
	}
	deferred := controller.Outcome{Plan: plan.Plan{Changes: []plan.Change{{Action: plan.Delete}}}}
	deferred.Deferred = []*plan.Change{&deferred.Plan.Changes[0]}
	if r := runReport(deferred, time.Now(), time.Millisecond); r.Result != Settling || r.Counts["deferred"] != 1 {
		t.Errorf("deletes waiting: report=%+v, want settling with 1 deferred", r)
	}
}

// levels is a slog handler that keeps every record's level, message and keys.
type levels struct {
	mu      sync.Mutex
	records []string // "LEVEL message key=value …"
}

func (l *levels) Enabled(context.Context, slog.Level) bool { return true }
func (l *levels) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *levels) WithGroup(string) slog.Handler            { return l }
func (l *levels) Handle(_ context.Context, r slog.Record) error {
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool {
		line += " " + a.Key + "=" + a.Value.String()
		return true
	})
	l.mu.Lock()
	l.records = append(l.records, line)
	l.mu.Unlock()
	return nil
}

func (l *levels) matching(prefix string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.records {
		if strings.HasPrefix(r, prefix) {
			out = append(out, r)
		}
	}
	return out
}

func TestRunsAreLoggedAtTheirLevelWithoutEmptyKeys(t *testing.T) {
	h := &levels{}
	log := slog.New(h)
	invalid := controller.Outcome{Problems: registry.Problems{{Pos: registry.Position{File: "registry/x.yaml", Line: 3}, Message: "broken"}}}
	logRun(log, invalid, runReport(invalid, time.Now(), time.Millisecond))
	conflict := controller.Outcome{Planned: true, Plan: plan.Plan{Changes: []plan.Change{{Path: "a", Action: plan.Conflict, Reason: "edited by hand"}}}}
	logRun(log, conflict, runReport(conflict, time.Now(), time.Millisecond))
	failed := controller.Outcome{Planned: true, Plan: plan.Plan{Changes: []plan.Change{{Path: "b", Action: plan.Create}}}, Err: os.ErrPermission,
		Applied: []apply.Applied{{Change: &plan.Change{Path: "b", Action: plan.Create}, Err: os.ErrPermission}}}
	logRun(log, failed, runReport(failed, time.Now(), time.Millisecond))
	ok := controller.Outcome{Planned: true, Plan: plan.Plan{InSync: []string{"c"}}}
	logRun(log, ok, runReport(ok, time.Now(), time.Millisecond))

	for prefix, want := range map[string]int{
		"WARN invalid input, nothing changed file=registry/x.yaml:3": 1,
		"WARN conflict kept path=a":                                  1,
		"ERROR change failed action=create path=b":                   1,
		"WARN reconcile finished result=invalid":                     1,
		"ERROR reconcile finished result=failed":                     1,
		"INFO reconcile finished result=conflicts":                   1,
		"INFO reconcile finished result=converged":                   1,
	} {
		if got := h.matching(prefix); len(got) != want {
			t.Errorf("%d records start %q, want %d; all:\n%s", len(got), prefix, want, strings.Join(h.records, "\n"))
		}
	}
	for _, r := range h.records {
		if strings.HasSuffix(r, "=") || strings.Contains(r, "= ") || strings.Contains(r, "hint=") {
			t.Errorf("a key without a value: %s", r)
		}
	}
	if got := h.matching("INFO reconcile finished result=converged"); len(got) == 1 && strings.Contains(got[0], "error=") {
		t.Errorf("a converged run carries an error key: %s", got[0])
	}
}

// TestWatchRunsOncePerSave: the events of the watcher's own writes (new skill
// directories and files, updates, the record of its sources) cause no further run,
// so one save is one run.
func TestWatchRunsOncePerSave(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	h := &levels{}
	tracker := &Tracker{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root, Settle: 2 * time.Second}, Debounce: 50 * time.Millisecond,
			MaxWait: 500 * time.Millisecond, Health: tracker, Log: slog.New(h)})
	}()
	runs := func() int { return len(h.matching("INFO reconcile finished")) }
	await(t, func() bool { return runs() == 1 })
	journal := filepath.Join(root, "registry/journal.yaml")
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	for i, save := range []struct {
		old, new string
		runs     int // the save's run, and one more for deletes that wait for the inputs to settle
	}{
		{"title: Weekly report for a team", "title: Weekly report, retitled", 1},
		{"alias: note,", "alias: jot,", 2}, // new skill directories, and the old ones deleted
	} {
		data = []byte(strings.Replace(string(data), save.old, save.new, 1))
		tmp := journal + ".swp"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		before := runs()
		if err := os.Rename(tmp, journal); err != nil {
			t.Fatal(err)
		}
		await(t, func() bool { return len(h.matching("INFO reconcile finished result=converged")) > before })
		time.Sleep(time.Second) // a run the save's own writes caused would start well within this
		if got := runs() - before; got != save.runs {
			t.Errorf("save %d: %d runs, want %d; log:\n%s", i+1, got, save.runs, strings.Join(h.records, "\n"))
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A ConfigMap volume: registry -> cm/..data -> ..2026_v1. The kubelet updates it by
// renaming a new ..data link over the old one, which shows only in cm/: the
// directories holding each link on the way are watched, and so is where they lead.
func TestInputDirsFollowTheLinksOnTheWay(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if err := os.Rename(filepath.Join(root, "registry"), filepath.Join(root, "cm-v1")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "cm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "cm-v1"), filepath.Join(root, "cm", "..2026_v1")); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"cm/..data": "..2026_v1", "registry": "cm/..data"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := registry.Load(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := inputDirs(r, registry.ConfigName, reg)
	for _, want := range []string{".", "cm", "registry"} {
		if !slices.Contains(got, want) {
			t.Errorf("input directories %v lack %s", got, want)
		}
	}
	if diff := cmp.Diff([]string{".", "cm", "cm/..2026_v1"}, registry.LinkDirs(r, "registry")); diff != "" {
		t.Errorf("registry.LinkDirs(registry) (-want +got):\n%s", diff)
	}
	// A link out of the workspace, or a loop, ends the walk.
	if err := os.Symlink("../..", filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"out/x", "loop/x"} {
		if dirs := registry.LinkDirs(r, p); len(dirs) > registry.MaxLinkHops+1 {
			t.Errorf("registry.LinkDirs(%s) = %v", p, dirs)
		}
	}
}

// The directories whose changes decide the registry include every level of a
// glob's directory part and where a registry file that is a link leads; the file
// it leads to is an input path, since its events name it.
func TestRegistryDirsCoverMiddleLevelsAndFileLinks(t *testing.T) {
	root := t.TempDir()
	for rel, content := range map[string]string{
		"skillsync.yaml":              "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [extra/*/sub/*.yaml, registry/*.yaml]\n",
		"extra/b/sub/list.yaml":       "",
		"library/caps.yaml":           "",
		"registry/.keep-the-dir.yaml": "",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../library/caps.yaml", filepath.Join(root, "registry/caps.yaml")); err != nil {
		t.Fatal(err)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	reg := &registry.Registry{Root: root, ConfigFile: registry.ConfigName, Files: []string{"extra/b/sub/list.yaml", "registry/caps.yaml"}}
	reg.Config.Spec.Registry = []string{"extra/*/sub/*.yaml", "registry/*.yaml"}
	got := registry.Dirs(r, reg)
	for _, want := range []string{"extra", "extra/b", "extra/b/sub", "registry", "library"} {
		if !slices.Contains(got, want) {
			t.Errorf("registry.Dirs = %v, lacks %s", got, want)
		}
	}
	if slices.Contains(got, ".") || slices.Contains(got, state.Dir) {
		t.Errorf("registry.Dirs = %v: the root and .skillsync/ count only through their files", got)
	}
	in := inputsOf(r, reg)
	for rel, want := range map[string]bool{
		"registry/caps.yaml": true, "library/caps.yaml": true, "library/other.yaml": false, "extra/c": true, "extra/c/sub/new.yaml": true,
		"extra/c/other": false, "dev.log": false, ".git": false, registry.ConfigName: true, "registry/new.yaml": true,
	} {
		if got := in.holds(rel); got != want {
			t.Errorf("holds(%s) = %v, want %v", rel, got, want)
		}
	}
}

// Events beside the inputs that are no input (a log written next to
// skillsync.yaml) neither keep deletes waiting nor cause runs.
func TestUnrelatedWritesDoNotHoldBackDeletes(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	property.Backdate(t, root)
	h := &levels{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root, Settle: 500 * time.Millisecond}, Debounce: 20 * time.Millisecond,
			MaxWait: 200 * time.Millisecond, Health: &Tracker{}, Log: slog.New(h)})
	}()
	await(t, func() bool { return len(h.matching("INFO reconcile finished")) == 1 })
	stop := make(chan struct{})
	written := make(chan struct{})
	go func() {
		defer close(written)
		for {
			f, err := os.OpenFile(filepath.Join(root, "dev.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err == nil {
				f.WriteString("a line\n")
				f.Close()
			}
			os.WriteFile(filepath.Join(root, "scratch.tmp"), nil, 0o644)
			os.Remove(filepath.Join(root, "scratch.tmp"))
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	defer func() { close(stop); <-written }()
	if err := os.WriteFile(filepath.Join(root, "registry/journal.yaml"), property.WithoutNote(t, root), 0o644); err != nil {
		t.Fatal(err)
	}
	await(t, func() bool {
		_, err := os.Stat(filepath.Join(root, property.NoteSkill))
		return errors.Is(err, fs.ErrNotExist) && len(h.matching("INFO reconcile finished result=converged")) == 2
	})
	runs := len(h.matching("INFO reconcile finished"))
	time.Sleep(500 * time.Millisecond)
	if more := len(h.matching("INFO reconcile finished")) - runs; more > 0 {
		t.Errorf("%d runs for writes that are no input; log:\n%s", more, strings.Join(h.records, "\n"))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A file a run wrote into a directory it made, and that was removed before the
// watch on that directory was in place, sent no event: the end of the run looks at
// every path written once more and calls for another run.
func TestRunEndedNoticesWhatChangedBeforeItsWatch(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	q := newQueue(time.Millisecond, time.Millisecond)
	src, err := newChangeSource(Options{Request: controller.Request{System: workspacefs.OS{}, Root: root}, informer: controller.NewInformer(), Health: &Tracker{}, Log: slog.New(&levels{})}, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	gone := ".qwen/skills/note/SKILL.md"
	kept := ".qwen/skills/intent/SKILL.md"
	data := []byte("generated\n")
	for _, p := range []string{gone, kept} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	written := apply.Content{Sum: sha256.Sum256(data), Size: int64(len(data))}
	applied := func(p string) apply.Applied {
		return apply.Applied{Change: &plan.Change{Path: p, Action: plan.Create}, Written: written}
	}

	src.runStarting()
	src.runEnded(controller.Outcome{Applied: []apply.Applied{applied(gone), applied(kept)}})
	select {
	case <-q.triggers:
		t.Fatal("a run was called for although everything written is in place")
	default:
	}
	src.runStarting()
	if err := os.Remove(filepath.Join(root, gone)); err != nil {
		t.Fatal(err)
	}
	src.runEnded(controller.Outcome{Applied: []apply.Applied{applied(gone), applied(kept)}})
	select {
	case <-q.triggers:
	default:
		t.Fatal("a file removed before its directory was watched called for no run")
	}
}

// The watcher's hints suggest polling by the flag the caller names, and name no
// flag when it names none.
func TestPollHintsNameOnlyTheFlagTheCallerGives(t *testing.T) {
	for _, hint := range []string{noEventsHint(""), watchLimitHint("")} {
		if strings.Contains(hint, "--") {
			t.Errorf("hint %q names a flag, though the caller named none", hint)
		}
	}
	if hint := noEventsHint("--poll"); !strings.HasSuffix(hint, "; pass --poll to choose the interval") {
		t.Errorf("hint %q does not suggest --poll", hint)
	}
}
