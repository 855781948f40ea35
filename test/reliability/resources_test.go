//go:build reliability && linux

package reliability

// Resources, locks and reports. skillsync runs short of file descriptors and of
// inotify watches, reads a registry a kubelet swaps under it, shares its lock file
// with whatever was planted there and writes into directories it may not change.
// In each case it must do the job or fail saying why, never take a lack of
// resources for an input that is gone, never write through a link, and print
// only what it did.
//
// The suite can fail. Verified on a scratch worktree of commit d553a32 (git
// worktree add /tmp/resources-mut HEAD; never in the real tree), one planted bug
// at a time, default settings (184 cases); the cases each one failed, beyond the
// two that failed then without it, for a defect since fixed (runs 2 and 3 under an
// immutable .claude/skills reported the empty directory they could not remove as
// "cleaned", see readOnlyDirs):
//
//   - main() without its checkOpenFiles call: 18, every run under ulimit -n 8, 12
//     and 15. skillsync ran instead of refusing to start: exit 4 "too many open
//     files" (at 8 reading skillsync.yaml, at 12 with some files written), or at
//     15 exit 0 with every file written or deleted.
//   - refresh in controller/watch/source.go skipping a directory whose inotify Add
//     fails instead of polling it: 1, the watch-limit case. /readyz shows
//     "polled": 0, nothing is logged, and the retitle is not applied in 30 s.
//   - registry.LinkDirs (desired/registry/inputdirs.go) returning nil: 1, the first ConfigMap
//     swap is not applied in 30 s. The second passes: removing the old version
//     at once changes the directory the registry resolved to, which is watched.
//   - the lock opened through the os.Root, r.OpenFile(LockFile, os.O_RDWR|os.O_CREATE|
//     syscall.O_NOFOLLOW, 0o644): all 6 lock-link cases. Through the hard link,
//     --once exits 0 with its pid written into the file outside and the watcher
//     starts; the symlink out gives exit 4 "path escapes from parent" instead of
//     the refusal; the symlink to registry/intents.yaml is followed, the pid
//     overwrites the registry (--once then exits 2: "document is not a
//     mapping") and the watcher starts.
//   - fate in cmd/skillsync/output.go giving the past tense to changes not
//     attempted: 1, the held lock in text, which prints "updated", "deleted" and
//     "created" lines (noted "not done") for changes it did not make; -o json is
//     not affected.
//   - removeIfEmpty in controller/apply/apply.go without its notPermitted case: 1, the
//     delete under an immutable .claude/skills exits 4 and reports "failed"
//     (runs 2 and 3 then exit 4 as well).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// TestResourcesAndReports: each case on a fresh copy of fixtures/example.
func TestResourcesAndReports(t *testing.T) {
	s := &resSuite{}
	t.Run("few file descriptors", s.fewDescriptors)
	t.Run("inotify watch limit", s.inotifyLimit)
	t.Run("configmap registry swap", s.configMapSwap)
	t.Run("lock file links", s.lockLinks)
	t.Run("lock held", s.lockHeld)
	t.Run("read-only directories", s.readOnlyDirs)
	report("resources, locks and reports", s.cases, s.failures,
		"ulimit -n 8..40: converged, or exit 4 'too many open files' with nothing removed or partial; few inotify watches: polled, edit applied; ConfigMap ..data swap applied, no file gone; linked lock file refused, untouched; held lock: exit 4, nothing claimed; read-only dirs: what is reported done is done")
}

// resSuite counts the cases of the suite and those that failed.
type resSuite struct {
	cases, failures int
}

// done ends one case; it failed when it found anything wrong.
func (s *resSuite) done(t *testing.T, name string, f resFindings) {
	t.Helper()
	s.cases++
	if len(f) > 0 {
		s.failures++
		t.Errorf("%s:\n  %s", name, strings.Join(f, "\n  "))
	}
}

// resFindings are what one case found wrong.
type resFindings []string

func (f *resFindings) expect(ok bool, format string, args ...any) {
	if !ok {
		*f = append(*f, fmt.Sprintf(format, args...))
	}
}

// ---------------------------------------------------------------------------
// Few file descriptors

// minOpenFiles is the open-file limit below which skillsync refuses to start.
const minOpenFiles = 16

// fdLimits are the open-file limits tried: a few below what skillsync needs to
// start, then every one from there to where a run of the example no longer runs
// short.
func fdLimits() []int {
	limits := []int{8, 12, 15}
	for n := minOpenFiles; n <= 40; n++ {
		limits = append(limits, n)
	}
	return limits
}

// fewDescriptors runs --once under every limit of fdLimits, on a workspace with
// everything to create and on one in sync with a capability removed. Which
// open fails, if any, depends on how the run's goroutines interleave, so each
// limit is tried RELIABILITY_FD_ROUNDS times.
func (s *resSuite) fewDescriptors(t *testing.T) {
	dir := t.TempDir()
	rounds := count("RELIABILITY_FD_ROUNDS", 3)

	created := example(t, dir)
	resConverge(t, created)
	wantCreated := resSkillFiles(t, created)

	// A workspace in sync whose registry lost a capability long ago: the run
	// deletes that capability's files at once, and nothing else.
	pruning := func() string {
		ws := example(t, dir)
		resConverge(t, ws)
		resDropCapability(t, ws, "intents.withdraw")
		must(t, workspacegen.Backdate(ws))
		return ws
	}
	pruned := pruning()
	resConverge(t, pruned)
	wantPruned := resSkillFiles(t, pruned)

	// How often each exit code came, to show the limits did bite.
	exits := map[int]int{}
	for range rounds {
		for _, n := range fdLimits() {
			ws := example(t, dir)
			before := resSkillFiles(t, ws)
			code, out := resUnderLimit(t, n, ws)
			exits[code]++
			s.done(t, fmt.Sprintf("ulimit -n %d, 15 files to create", n), resJudgeLimited(t, n, ws, code, out, before, wantCreated))

			ws = pruning()
			before = resSkillFiles(t, ws)
			code, out = resUnderLimit(t, n, ws)
			exits[code]++
			s.done(t, fmt.Sprintf("ulimit -n %d, intents.withdraw removed", n), resJudgeLimited(t, n, ws, code, out, before, wantPruned))
		}
	}
	t.Logf("exit codes under ulimit -n %d..40, %d rounds: %v", fdLimits()[0], rounds, exits)
}

// resUnderLimit runs reconcile --once on ws with the open-file limit (soft and
// hard) set to n.
func resUnderLimit(t *testing.T, n int, ws string) (int, string) {
	return run("sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, n), testkit.Binary(t), "--workspace", ws, "reconcile", "--once")
}

// resJudgeLimited checks a run under the open-file limit n. Below the minimum it
// refuses to start, naming the limit, and changes nothing. Otherwise it converges
// to want (exit 0) or runs short (exit 4, "too many open files"), and then every
// SKILL.md is what it was before or what it should be: none removed that should
// stay, none partial. It never reports the shortage as something wrong with the
// inputs.
func resJudgeLimited(t *testing.T, n int, ws string, code int, out string, before, want map[string]string) resFindings {
	var f resFindings
	got := resSkillFiles(t, ws)
	for _, wrong := range []string{"matches no file", "is not declared"} {
		f.expect(!strings.Contains(out, wrong), "says %q: a lack of descriptors taken for a problem of the inputs", wrong)
	}
	switch {
	case n < minOpenFiles:
		// Refused at start, before anything could run short.
		f.expect(code == 4 && strings.Contains(out, "open-file limit") && !strings.Contains(out, "too many open files"),
			"exit %d, want 4 refusing to start under the open-file limit", code)
		f.expect(maps.Equal(got, before), "changed the skill files: %s", resDiffFiles(before, got))
	case code == 0:
		f.expect(maps.Equal(got, want), "exit 0, but the skill files are not the converged ones: %s", resDiffFiles(want, got))
	case code == 4:
		f.expect(strings.Contains(out, "too many open files"), "exit 4 without saying \"too many open files\"")
		for _, p := range slices.Sorted(maps.Keys(got)) {
			data := got[p]
			f.expect(data == want[p] || data == before[p], "%s holds neither the old nor the new content (%d bytes)", p, len(data))
		}
		for p := range before {
			_, wanted := want[p]
			_, kept := got[p]
			f.expect(kept || !wanted, "%s was removed", p)
		}
	default:
		f.expect(false, "exit %d, want 0 or 4", code)
	}
	f.expect(!hasTemp(ws), "a temp file is left")
	if len(f) > 0 {
		f = append(f, "output:\n"+out)
	}
	return f
}

// resSkillFiles reads every SKILL.md in the target directories of ws, by
// workspace-relative slash path.
func resSkillFiles(t *testing.T, ws string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(ws, ".*", "skills", "*", "SKILL.md"))
	must(t, err)
	files := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		must(t, err)
		rel, err := filepath.Rel(ws, p)
		must(t, err)
		files[filepath.ToSlash(rel)] = string(data)
	}
	return files
}

// resDiffFiles names the paths whose content differs between want and got.
func resDiffFiles(want, got map[string]string) string {
	var d []string
	for _, p := range slices.Sorted(maps.Keys(want)) {
		switch data, ok := got[p]; {
		case !ok:
			d = append(d, p+" missing")
		case data != want[p]:
			d = append(d, p+" differs")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			d = append(d, p+" extra")
		}
	}
	return strings.Join(d, ", ")
}

// resDropCapability removes the document declaring capability name from
// registry/intents.yaml. It is not the last document, so what is left is no
// prefix of what was applied, which skillsync would refuse as a cut-off save.
func resDropCapability(t *testing.T, ws, name string) {
	t.Helper()
	file := filepath.Join(ws, "registry", "intents.yaml")
	data, err := os.ReadFile(file)
	must(t, err)
	docs := strings.Split(string(data), "\n---\n")
	i := slices.IndexFunc(docs, func(doc string) bool { return strings.Contains(doc, "metadata: {name: "+name+"}") })
	if i < 0 || i == len(docs)-1 {
		t.Fatalf("%s: no document declaring %s before the last one", file, name)
	}
	kept := slices.Delete(docs, i, i+1)
	must(t, os.WriteFile(file, []byte(strings.Join(kept, "\n---\n")), 0o644))
}

// ---------------------------------------------------------------------------
// The inotify watch limit

// inotifyLimit starts a watcher that can add only a few inotify watches. It must
// say once that it polls the directories it cannot watch, report them on /readyz,
// and apply a registry edit made afterwards. The resync is an hour away, and with
// 5 watches for 22 directories the registry directory is polled (today the watches
// go to the first five in sorted order), so only polling can see the edit.
func (s *resSuite) inotifyLimit(t *testing.T) {
	var f resFindings
	addr := testkit.FreeAddr(t)
	var ws string
	var w *resWatcher
	args := []string{"--log-format", "json", "reconcile", "--resync", "1h", "--health-addr", addr}
	if resUserWatchLimit() {
		// The limit of a user namespace of its own: nothing else on the machine is
		// affected, and the watcher keeps it for its whole life.
		t.Log("inotify watch limit: 5, in a user namespace of the watcher's own")
		ws = example(t, t.TempDir())
		resConverge(t, ws)
		w = resStartWatcher(t, exec.Command("unshare", append([]string{"--user", "--map-root-user", "sh", "-c",
			`echo 5 >/proc/sys/user/max_inotify_watches && exec "$0" "$@"`, testkit.Binary(t), "--workspace", ws}, args...)...))
		body, ok := resAwaitReadyz(addr, func(status int, _ resReadiness) bool { return status == http.StatusOK })
		f.expect(ok, "/readyz never ready: %s", body)
		f.expect(resPolled(body) > 0, "/readyz does not report polled directories: %s", body)
	} else {
		ws, w = resGlobalWatchLimit(t, &f, addr, args)
	}

	edited := time.Now()
	registry := filepath.Join(ws, "registry", "intents.yaml")
	data, err := os.ReadFile(registry)
	must(t, err)
	const title = "Search intents, seen by polling"
	must(t, os.WriteFile(registry, []byte(replaceLine(string(data), "  title: Search intents", "  title: "+title)), 0o644))
	body, ok := resAwaitReadyz(addr, resConvergedSince(edited, func() bool {
		return resAllHold(ws, "find-intent", title)
	}))
	f.expect(ok, "the retitle was not applied within 30 s; /readyz: %s", body)

	err = w.stop()
	logs := w.logs.String()
	f.expect(err == nil, "watcher: %v, want exit 0", err)
	warned, errs := resLogLevels(logs)
	f.expect(warned == 1, "logged %d warnings about directories inotify cannot watch, want 1", warned)
	f.expect(len(errs) == 0, "logged errors: %s", strings.Join(errs, "; "))
	if len(f) > 0 {
		f = append(f, "log:\n"+logs)
	}
	s.done(t, "a watcher short of inotify watches", f)
}

// resUserWatchLimit tells whether this machine lets a new user namespace set an
// inotify watch limit of its own.
func resUserWatchLimit() bool {
	code, _ := run("unshare", "--user", "--map-root-user", "sh", "-c", "echo 5 >/proc/sys/user/max_inotify_watches")
	return code == 0
}

// resGlobalWatchLimit starts the watcher as uid 65534, whose watches are its own,
// with fs.inotify.max_user_watches lowered to one above the most any user holds
// now, and restores the limit as soon as the watcher is ready: every other user
// of the machine goes short of watches only for that moment. Not sooner: the
// first run ends by adding the watches it lacks again, and if that succeeded
// nothing would be polled.
func resGlobalWatchLimit(t *testing.T, f *resFindings, addr string, args []string) (string, *resWatcher) {
	if os.Getuid() != 0 {
		t.Skip("neither a user namespace nor root to lower the inotify watch limit, skipped")
	}
	const sysctl = "/proc/sys/fs/inotify/max_user_watches"
	old, err := os.ReadFile(sysctl)
	if err != nil {
		t.Skipf("no %s, skipped: %v", sysctl, err)
	}
	used := resWatchesByUser()
	limit := slices.Max(append(slices.Collect(maps.Values(used)), 0)) + 1
	if limit-used[65534] >= 20 { // the watcher needs 22
		t.Skipf("users here hold up to %d inotify watches; a limit above that would not make the watcher poll, skipped", limit-1)
	}

	parent, err := os.MkdirTemp("", "inotify-") // t.TempDir's parent is closed to others
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(parent) })
	must(t, os.Chmod(parent, 0o755))
	ws := example(t, parent)
	resConverge(t, ws)
	must(t, filepath.Walk(ws, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	}))
	must(t, os.Chmod(ws, 0o755))
	bin := filepath.Join(parent, "skillsync")
	data, err := os.ReadFile(testkit.Binary(t))
	must(t, err)
	must(t, os.WriteFile(bin, data, 0o755))

	var once sync.Once
	restore := func() {
		once.Do(func() {
			if err := os.WriteFile(sysctl, old, 0o644); err != nil {
				t.Errorf("restore %s to %s: %v", sysctl, bytes.TrimSpace(old), err)
			}
		})
	}
	t.Cleanup(restore)
	defer restore()
	t.Logf("inotify watch limit: fs.inotify.max_user_watches lowered from %s to %d while the watcher starts as uid 65534", bytes.TrimSpace(old), limit)
	must(t, os.WriteFile(sysctl, []byte(strconv.Itoa(limit)), 0o644))
	cmd := exec.Command(bin, append([]string{"--workspace", ws}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	w := resStartWatcher(t, cmd)
	body, ok := resAwaitReadyz(addr, func(status int, _ resReadiness) bool { return status == http.StatusOK })
	restore()
	f.expect(ok, "/readyz never ready: %s", body)
	f.expect(resPolled(body) > 0, "/readyz does not report polled directories: %s", body)
	return ws, w
}

// resWatchesByUser counts the inotify watches each uid holds, from /proc.
func resWatchesByUser() map[uint32]int {
	used := map[uint32]int{}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		infos, _ := filepath.Glob(filepath.Join(p, "fdinfo", "*"))
		for _, fi := range infos {
			data, _ := os.ReadFile(fi)
			used[info.Sys().(*syscall.Stat_t).Uid] += bytes.Count(data, []byte("inotify wd:"))
		}
	}
	return used
}

// resLogLevels counts the warnings that mention inotify in a JSON log, and lists
// the errors.
func resLogLevels(logs string) (inotifyWarnings int, errors []string) {
	for _, line := range strings.Split(logs, "\n") {
		var entry struct{ Level, Msg string }
		if json.Unmarshal([]byte(line), &entry) != nil {
			continue
		}
		switch {
		case entry.Level == "WARN" && strings.Contains(entry.Msg, "inotify"):
			inotifyWarnings++
		case entry.Level == "ERROR":
			errors = append(errors, line)
		}
	}
	return inotifyWarnings, errors
}

// ---------------------------------------------------------------------------
// A registry in a ConfigMap volume

// configMapSwap lays the registry out as a ConfigMap volume does (registry ->
// cm/..data -> ..2026_v1) and updates it the way the kubelet does: a new
// timestamped directory, a ..data_tmp link to it renamed over ..data, the old
// directory removed. Nothing changes in the directory the registry resolves to,
// only in those holding the links, so the watcher must watch those.
func (s *resSuite) configMapSwap(t *testing.T) {
	ws := example(t, t.TempDir())
	cm := filepath.Join(ws, "cm")
	v1 := filepath.Join(cm, "..2026_v1")
	must(t, os.MkdirAll(v1, 0o755))
	files, err := filepath.Glob(filepath.Join(ws, "registry", "*.yaml"))
	must(t, err)
	original := map[string]string{}
	for _, p := range files {
		data, err := os.ReadFile(p)
		must(t, err)
		original[filepath.Base(p)] = string(data)
		must(t, os.Rename(p, filepath.Join(v1, filepath.Base(p))))
	}
	must(t, os.Remove(filepath.Join(ws, "registry")))
	must(t, os.Symlink("..2026_v1", filepath.Join(cm, "..data")))
	must(t, os.Symlink("cm/..data", filepath.Join(ws, "registry")))
	resConverge(t, ws)

	addr := testkit.FreeAddr(t)
	w := resStartWatcher(t, exec.Command(testkit.Binary(t), "--workspace", ws, "reconcile", "--resync", "1h", "--debounce", "20ms", "--health-addr", addr))
	awaitReady(t, addr)

	// The old version stays until the edit is seen, so that only the swap of
	// ..data can have told the watcher: removing it would change the directory
	// the registry resolved to, which is watched anyway.
	var f resFindings
	v2 := resConfigMapVersion(original, "Search intents (v2)")
	present := slices.Sorted(maps.Keys(resSkillFiles(t, ws)))
	watch := resWatchPresence(ws, present)
	swapped := resConfigMapSwap(t, cm, "..2026_v2", v2)
	body, ok := resAwaitReadyz(addr, resConvergedSince(swapped, func() bool {
		return resAllHold(ws, "find-intent", "Search intents (v2)") && resAllHold(ws, "archive-intent", "Archive an intent")
	}))
	f.expect(ok, "the swap to ..2026_v2 was not applied within 30 s (retitle, alias archive-intent); /readyz: %s", body)
	must(t, os.RemoveAll(v1))
	f = append(f, watch()...)
	s.done(t, "..data swapped to a version with a retitle and a new alias", f)

	// The kubelet's own order: the old version goes right after the swap.
	f = nil
	v3 := resConfigMapVersion(original, "Search intents (v3)")
	present = slices.Sorted(maps.Keys(resSkillFiles(t, ws)))
	watch = resWatchPresence(ws, present)
	swapped = resConfigMapSwap(t, cm, "..2026_v3", v3)
	must(t, os.RemoveAll(filepath.Join(cm, "..2026_v2")))
	body, ok = resAwaitReadyz(addr, resConvergedSince(swapped, func() bool {
		return resAllHold(ws, "find-intent", "Search intents (v3)") && resAllHold(ws, "archive-intent", "Archive an intent")
	}))
	f.expect(ok, "the swap to ..2026_v3 was not applied within 30 s; /readyz: %s", body)
	f = append(f, watch()...)
	f.expect(w.stop() == nil, "the watcher did not stop cleanly")
	if len(f) > 0 {
		f = append(f, "log:\n"+w.logs.String())
	}
	s.done(t, "..data swapped and the old version removed at once", f)
}

// resConfigMapVersion is the registry with intents.search retitled and a new
// capability under the alias archive-intent.
func resConfigMapVersion(original map[string]string, title string) map[string]string {
	v := maps.Clone(original)
	v["intents.yaml"] = replaceLine(v["intents.yaml"], "  title: Search intents", "  title: "+title) + `
---
apiVersion: skillsync/v1
kind: Capability
metadata: {name: intents.archive}
spec:
  title: Archive an intent
  effect: write
  input:
    type: object
    properties: {reference: {type: string}}
    required: [reference]
  mcp: {tool: intents_archive}
  skill: {alias: archive-intent, argument: reference}
`
	return v
}

// resConfigMapSwap writes files into cm/name and points cm/..data at it by
// renaming a fresh link over it; it returns the time just before the swap.
func resConfigMapSwap(t *testing.T, cm, name string, files map[string]string) time.Time {
	t.Helper()
	dir := filepath.Join(cm, name)
	must(t, os.Mkdir(dir, 0o755))
	for file, data := range files {
		must(t, os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644))
	}
	must(t, os.Symlink(name, filepath.Join(cm, "..data_tmp")))
	at := time.Now()
	must(t, os.Rename(filepath.Join(cm, "..data_tmp"), filepath.Join(cm, "..data")))
	return at
}

// resWatchPresence checks every few milliseconds that each of paths exists,
// until the returned function is called; that reports each one seen missing.
func resWatchPresence(ws string, paths []string) func() resFindings {
	stop := make(chan struct{})
	done := make(chan resFindings)
	go func() {
		missing := map[string]bool{}
		for {
			for _, p := range paths {
				if _, err := os.Lstat(filepath.Join(ws, p)); err != nil {
					missing[p] = true
				}
			}
			select {
			case <-stop:
				var f resFindings
				for _, p := range slices.Sorted(maps.Keys(missing)) {
					f = append(f, p+" was missing for a moment")
				}
				done <- f
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() resFindings {
		close(stop)
		return <-done
	}
}

// resAllHold tells whether the SKILL.md of alias holds text in every target.
func resAllHold(ws, alias, text string) bool {
	for _, target := range []string{".claude", ".qwen", ".agents"} {
		data, err := os.ReadFile(filepath.Join(ws, target, "skills", alias, "SKILL.md"))
		if err != nil || !strings.Contains(string(data), text) {
			return false
		}
	}
	return true
}
