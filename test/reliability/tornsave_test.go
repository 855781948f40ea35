//go:build reliability && linux

package reliability

// Torn saves never prune. A watcher with its default timings (--debounce 100ms,
// --max-wait 1s, --settle 2s) runs on a workspace while a registry file is saved the
// ways editors, tools and git save it: truncated and written in two goes with a
// pause of 100 to 200 ms between them, with the edit before or after the point where
// the first write stops; deleted and created again after 50 ms to 1 s; saved over
// and over for longer than --max-wait; and rewritten with 2 000 other files by a
// git checkout, under a watcher that runs every 100 ms meanwhile. The workspace also
// has a whole skill directory (spec.dir: skills/release, with a script, a binary
// file and nested folders), and its files are saved the same ways: its SKILL.md
// torn inside the front matter and in the body, emptied, and deleted and created
// again; a generated SKILL.md rewritten in place with its own bytes, emptied or
// cut inside its banner for a pause; a supporting file torn, emptied, deleted
// and created again, and saved
// over and over; the script deleted and created again without its mode; a folder
// of it, and the whole directory, removed and written again, as a checkout does.
// A goroutine polls every generated file that is wanted both before
// and after the save, every few milliseconds, from the first write until the
// watcher reports the last save converged: the case fails if any of them is missing
// even once, or if the generated files then differ from what a single
// `reconcile --once` makes of the last save.
//
// The suite can fail. Verified on a scratch worktree of the repository (never the
// real tree), seed 1, 17 cases:
//
//   - mayDelete in controller/settle.go made to return true (deletes never wait):
//     7 failures: the torn saves with the edit before the cut (150 and 200 ms
//     pauses), delete-then-create after 250 ms, 500 ms and 1 s, the storm and the
//     checkout each lost wanted files for a moment ("… was missing for a
//     moment"); other runs of the same mutation also failed delete-then-create
//     after 100 ms and the checkout back, the timings deciding which half-saved
//     state a run reads. With the edit after the cut, the first part is a prefix
//     of the file last applied, and the cut-off guard alone kept it.
//   - that, and cutOffProblems in controller/reconcile.go made to return nil (no
//     cut-off guard either; measured with a checkout of 1 200 files): 12 failures,
//     the edit-after-the-cut saves and both checkouts among them. The five that held are a mid-line cut (which does not
//     parse), delete-then-create after 50 ms and a 100 ms pause (both shorter
//     than the 100 ms quiet period, so no run read the half-saved file) and the
//     two watcher stops.
//
// The generated SKILL.md rewritten in place, verified the same way: with the
// people's SKILL.md files left out of what settles (inputsChanged in
// controller/settle.go), all four cases lost the copies in the other targets
// for a moment (.agents/skills/intent/SKILL.md, its agents/openai.yaml and
// .qwen/skills/intent/SKILL.md).
//
// The skill-directory saves, verified the same way (seed 1, 35 cases):
//
//   - mayDelete made to return true: 14 failures, five of them skill-directory
//     saves: a supporting file deleted and created again after 150 ms, 500 ms and
//     1 s, the script deleted and created again, and the references/ folder
//     removed and written again each lost the target copies for a moment. The
//     50 ms gap is shorter than the quiet period; while the whole directory or
//     its SKILL.md is missing or cut in its front matter, the registry is invalid
//     and nothing is written.
//   - the SKILL.md written while the deletes of its directory wait (ApplyGated
//     in controller/apply/apply.go writing o.manifests, not o.ready(o.manifests,
//     notDone)): 8 failures, all skill-directory saves. The SKILL.md written
//     during the gap no longer names checklist.md, so the copies put back are a
//     person's files: the watcher ends in conflicts ("never converged") and the
//     directory stays stuck for every save after.

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// tornSuite is one watcher on one workspace and the failures found so far.
type tornSuite struct {
	t        *testing.T
	ws       string
	addr     string
	rng      *rand.Rand
	cases    int
	failed   int
	problems []string
}

func TestTornSaves(t *testing.T) {
	s := &tornSuite{t: t, rng: rand.New(rand.NewPCG(uint64(seed(1)), 11))}
	s.ws = example(t, t.TempDir())
	must(t, writeSkillDirSource(filepath.Join(s.ws, filepath.FromSlash(tornSkillDir)), tornSkillFiles(s.rng)))
	must(t, os.WriteFile(filepath.Join(s.ws, "registry", "skill-release.yaml"),
		[]byte("apiVersion: skillsync/v1\nkind: Skill\nmetadata:\n  name: release\nspec:\n  dir: ../skills/release\n"), 0o644))
	must(t, workspacegen.Backdate(s.ws))
	stop := s.startWatcher(s.ws)
	// A generated SKILL.md rewritten in place with its own bytes (a tool that
	// copies it over itself), emptied or cut inside its banner for the pause: it
	// reads as a person's skill of that name meanwhile, which takes the name from
	// every target, so its copies in the others are deletes that wait for it to
	// settle, and it is whole again before they may go. First, while the inputs
	// are settled (backdated, and no event seen for them), where only this wait
	// holds the deletes back; the inputs do not change, so what a single run
	// makes is what is there.
	gen := ".claude/skills/intent/SKILL.md"
	own := s.read(gen)
	for _, cut := range []int{0, 20} {
		for _, pause := range []time.Duration{150 * time.Millisecond, 500 * time.Millisecond} {
			s.watchSave(s.ws, generated(s.t, s.ws), fmt.Sprintf("a generated SKILL.md rewritten in place, its first %d bytes written, %s pause", cut, pause), func() {
				tornWrite(filepath.Join(s.ws, filepath.FromSlash(gen)), own, cut, pause)
			})
		}
	}
	file := "registry/intents.yaml"
	base := s.read(file)

	// Torn in two, the edit after the cut: the first part is the file up to its
	// first or second document, valid YAML that declares less.
	for _, pause := range []time.Duration{100 * time.Millisecond, 150 * time.Millisecond, 200 * time.Millisecond} {
		next := retitle(base, "Withdraw an intent", fmt.Sprintf("Withdraw an intent (%s)", pause))
		s.save(file, next, fmt.Sprintf("torn save, edit after the cut, %s pause", pause), func(p string) {
			tornWrite(p, next, documentEnd(next, 1), pause)
		})
		base = next
	}
	// Torn in two, the edit before the cut: the first part is no prefix of the file
	// last applied, so the record of it cannot tell it is cut.
	for _, pause := range []time.Duration{100 * time.Millisecond, 150 * time.Millisecond, 200 * time.Millisecond} {
		next := retitle(base, "Propose an intent", fmt.Sprintf("Propose an intent (%s)", pause))
		s.save(file, next, fmt.Sprintf("torn save, edit before the cut, %s pause", pause), func(p string) {
			tornWrite(p, next, documentEnd(next, 2), pause)
		})
		base = next
	}
	// Torn mid-line: the first part does not parse.
	next := retitle(base, "Search intents", "Search intents again")
	s.save(file, next, "torn save, cut mid-line, 150ms pause", func(p string) {
		tornWrite(p, next, documentEnd(next, 2)-7, 150*time.Millisecond)
	})
	base = next

	// Deleted, then created again after a gap.
	for _, gap := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second} {
		next := retitle(base, "List open intents", fmt.Sprintf("List open intents (%s)", gap))
		s.save(file, next, fmt.Sprintf("delete, then create %s later", gap), func(p string) {
			os.Remove(p)
			time.Sleep(gap)
			os.WriteFile(p, next, 0o644)
		})
		base = next
	}

	// A storm of torn saves for three times --max-wait, each save spending most of
	// its time half written: the runs the storm forces read half-saved files, whose
	// first document's title differs from the file last applied.
	final := retitle(base, "Propose an intent", "Propose an intent after the storm")
	s.save(file, final, "torn saves every 50-100ms for 3s", func(p string) {
		for i, end := 0, time.Now().Add(3*time.Second); time.Now().Before(end); i++ {
			v := retitle(base, "Propose an intent", fmt.Sprintf("Propose an intent, save %d of the storm", i))
			tornWrite(p, v, documentEnd(v, 1), time.Duration(40+s.rng.IntN(50))*time.Millisecond)
			time.Sleep(time.Duration(5+s.rng.IntN(10)) * time.Millisecond)
		}
		tornWrite(p, final, documentEnd(final, 1), 100*time.Millisecond)
	})
	s.skillDirSaves()
	if err := stop(); err != nil {
		s.fail("the watcher did not stop cleanly: %v", err)
	}
	s.done("the watcher stopped with SIGTERM")

	s.checkout()
	report("torn saves never prune", s.cases, s.failed,
		"watcher at default timings; a generated SKILL.md rewritten in place, emptied or cut in its banner for 150-500ms; torn saves with 100-200ms pauses (edit before and after the cut, cut mid-line), delete-then-create after 50ms-1s, 3s storm, git checkout of 2 000 files both ways (runs every 100ms); a skill directory's SKILL.md and supporting files torn, emptied, deleted then created, a folder and the whole directory rewritten: no wanted file missing at any poll, end state (bytes and execute bits) = a single --once of the last save")
}

// save applies one save to file through write, and checks that no generated file
// wanted before and after it goes missing at any moment until the watcher has
// converged on it, and that the workspace then holds what a single run makes of it.
func (s *tornSuite) save(file string, final []byte, name string, write func(path string)) {
	expected := s.expect(s.ws, map[string][]byte{file: final})
	s.watchSave(s.ws, expected, name, func() { write(filepath.Join(s.ws, filepath.FromSlash(file))) })
}

// watchSave runs save on ws under a monitor of the files wanted both now and in
// expected, awaits the converged run, and compares the result with expected.
func (s *tornSuite) watchSave(ws string, expected map[string]genFile, name string, save func()) {
	before := generated(s.t, ws)
	var wanted []string
	for p := range before {
		if _, ok := expected[p]; ok {
			wanted = append(wanted, p)
		}
	}
	slices.Sort(wanted)
	mon := monitor(ws, wanted)
	save()
	saved := time.Now()
	status, body, ok := awaitRun(s.addr, saved, func(status int, body string) bool {
		return status == http.StatusOK && strings.Contains(body, `"result":"converged"`)
	})
	vanished := mon.stop()
	s.t.Logf("%s: %d wanted files polled %d times each", name, len(wanted), mon.rounds())
	if !ok {
		s.fail("the watcher never converged after the last save; /readyz: %d %s", status, body)
	}
	for _, v := range vanished {
		s.fail("%s was missing for a moment", v)
	}
	s.compare(expected, generated(s.t, ws))
	s.done(name)
}

// expect is what a single `reconcile --once` makes of ws's inputs with the files
// in changed replaced: the generated files by path.
func (s *tornSuite) expect(ws string, changed map[string][]byte) map[string]genFile {
	ref := filepath.Join(s.t.TempDir(), "reference")
	err := os.CopyFS(ref, os.DirFS(ws))
	for _, d := range []string{".claude", ".qwen", ".agents", ".skillsync"} {
		if err == nil {
			err = os.RemoveAll(filepath.Join(ref, d))
		}
	}
	for rel, data := range changed {
		if err == nil {
			err = os.WriteFile(filepath.Join(ref, filepath.FromSlash(rel)), data, 0o644)
		}
	}
	must(s.t, err)
	if code, out := runOnce(s.t, ref, "--settle", "0"); code != 0 {
		s.t.Fatalf("reference run: exit %d\n%s", code, out)
	}
	return generated(s.t, ref)
}

func (s *tornSuite) compare(want, got map[string]genFile) {
	for p, w := range want {
		switch g, ok := got[p]; {
		case !ok:
			s.fail("after the last save %s is missing", p)
		case !bytes.Equal(g.data, w.data):
			s.fail("after the last save %s does not hold what a single run of it writes", p)
		case g.exec != w.exec:
			s.fail("after the last save %s is executable: %v, a single run of it makes it %v", p, g.exec, w.exec)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			s.fail("after the last save %s is left over", p)
		}
	}
}

// tornSkillDir is the skill directory the workspace declares with spec.dir.
const tornSkillDir = "skills/release"

// tornSkillFiles is skills/release as its author first writes it: a SKILL.md
// whose body runs over several lines, a script, a checklist, a binary file and a
// guide two folders down.
func tornSkillFiles(rng *rand.Rand) map[string]dirSrcFile {
	logo := make([]byte, 4096)
	for i := range logo {
		logo[i] = byte(rng.UintN(256))
	}
	var body strings.Builder
	for i := range 12 {
		fmt.Fprintf(&body, "%d. Step %d of the release: see checklist.md.\n", i+1, i+1)
	}
	var list strings.Builder
	for i := range 40 {
		fmt.Fprintf(&list, "- [ ] item %d\n", i+1)
	}
	return map[string]dirSrcFile{
		"SKILL.md": {data: []byte("---\nname: release\ndescription: Cut a release.\nallowed-tools: Bash(git:*)\n---\n" +
			"Run scripts/release.sh, then go through checklist.md.\n\n" + body.String())},
		"scripts/release.sh":       {data: []byte("#!/bin/sh\necho released\n"), exec: true},
		"checklist.md":             {data: []byte(list.String())},
		"assets/logo.bin":          {data: logo},
		"references/deep/guide.md": {data: []byte("# Guide\n\nTag, build, publish.\n")},
	}
}

// skillDirSaves saves the files of skills/release the ways editors and checkouts
// do. A torn SKILL.md is invalid while its front matter is cut (nothing may be
// written) and only shorter in its body; a supporting file torn or emptied is a
// smaller file to copy, and one deleted, or a folder of them, is a file the skill
// no longer has, whose copies in every target the prune must not take while the
// inputs have not settled. Each ends where a single run of the last save ends,
// execute bits included.
func (s *tornSuite) skillDirSaves() {
	skill := tornSkillDir + "/SKILL.md"
	list := tornSkillDir + "/checklist.md"
	script := tornSkillDir + "/scripts/release.sh"

	next := setLine(s.read(skill), "description: ", "description: Cut a release, torn in its front matter.")
	s.save(skill, next, "SKILL.md torn inside its front matter, 150ms pause", func(p string) {
		tornWrite(p, next, bytes.Index(next, []byte("description:"))+5, 150*time.Millisecond)
	})
	next = setLine(s.read(skill), "9. ", "9. Step nine, torn in the body.")
	s.save(skill, next, "SKILL.md torn in its body, 200ms pause", func(p string) {
		tornWrite(p, next, bytes.Index(next, []byte("5. Step")), 200*time.Millisecond)
	})
	next = setLine(s.read(skill), "2. ", "2. Step two, emptied first.")
	s.save(skill, next, "SKILL.md emptied, then written 150ms later", func(p string) {
		tornWrite(p, next, 0, 150*time.Millisecond)
	})
	for _, gap := range []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, time.Second} {
		next := setLine(s.read(skill), "3. ", fmt.Sprintf("3. Step three, deleted for %s.", gap))
		s.save(skill, next, fmt.Sprintf("SKILL.md deleted, then created %s later", gap), func(p string) {
			os.Remove(p)
			time.Sleep(gap)
			os.WriteFile(p, next, 0o644)
		})
	}

	for _, pause := range []time.Duration{150 * time.Millisecond, 250 * time.Millisecond} {
		next := append(s.read(list), fmt.Sprintf("- [ ] added after a %s pause\n", pause)...)
		s.save(list, next, fmt.Sprintf("supporting file torn in half, %s pause", pause), func(p string) {
			tornWrite(p, next, len(next)/2, pause)
		})
	}
	next = append(s.read(list), "- [ ] added after emptying\n"...)
	s.save(list, next, "supporting file emptied, then written 200ms later", func(p string) {
		tornWrite(p, next, 0, 200*time.Millisecond)
	})
	for _, gap := range []time.Duration{50 * time.Millisecond, 150 * time.Millisecond, 500 * time.Millisecond, time.Second} {
		next := append(s.read(list), fmt.Sprintf("- [ ] added after a %s gap\n", gap)...)
		s.save(list, next, fmt.Sprintf("supporting file deleted, then created %s later", gap), func(p string) {
			os.Remove(p)
			time.Sleep(gap)
			os.WriteFile(p, next, 0o644)
		})
	}
	// Created again with mode 0644, as an editor that deletes first does: its
	// #! line keeps it executable in every target.
	next = []byte("#!/bin/sh\necho released, again\n")
	s.save(script, next, "script deleted, then created 300ms later without its mode", func(p string) {
		os.Remove(p)
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(p, next, 0o644)
	})
	logo := tornSkillDir + "/assets/logo.bin"
	next = slices.Clone(s.read(logo))
	next[len(next)-1] ^= 0xff
	s.save(logo, next, "binary supporting file torn in half, 150ms pause", func(p string) {
		tornWrite(p, next, len(next)/2, 150*time.Millisecond)
	})

	// A folder of supporting files, then the whole directory, removed and
	// written again, as a checkout that rewrites them does.
	guide := tornSkillDir + "/references/deep/guide.md"
	next = append(s.read(guide), "Then announce it.\n"...)
	s.save(guide, next, "folder of supporting files removed, then written again 300ms later", func(p string) {
		os.RemoveAll(filepath.Join(s.ws, filepath.FromSlash(tornSkillDir), "references"))
		time.Sleep(300 * time.Millisecond)
		must(s.t, writeSkillDirFile(filepath.Join(s.ws, filepath.FromSlash(tornSkillDir)), "references/deep/guide.md", dirSrcFile{data: next}))
	})
	files := s.skillFiles()
	files["checklist.md"] = dirSrcFile{data: append(files["checklist.md"].data, "- [ ] added by a checkout\n"...)}
	next = files["checklist.md"].data
	s.save(list, next, "whole skill directory removed, then written again 500ms later", func(string) {
		dir := filepath.Join(s.ws, filepath.FromSlash(tornSkillDir))
		os.RemoveAll(dir)
		time.Sleep(500 * time.Millisecond)
		must(s.t, writeSkillDirSource(dir, files))
	})

	// A supporting file saved over and over for three times --max-wait, each
	// save spending most of its time half written.
	base := s.read(list)
	final := append(slices.Clone(base), "- [ ] added after the storm\n"...)
	s.save(list, final, "supporting file torn every 50-100ms for 3s", func(p string) {
		for i, end := 0, time.Now().Add(3*time.Second); time.Now().Before(end); i++ {
			v := append(slices.Clone(base), fmt.Sprintf("- [ ] save %d of the storm\n", i)...)
			tornWrite(p, v, len(v)/3, time.Duration(40+s.rng.IntN(50))*time.Millisecond)
			time.Sleep(time.Duration(5+s.rng.IntN(10)) * time.Millisecond)
		}
		tornWrite(p, final, len(final)/3, 100*time.Millisecond)
	})
}

// skillFiles reads skills/release as it is now, with each file's execute bit.
func (s *tornSuite) skillFiles() map[string]dirSrcFile {
	dir := filepath.Join(s.ws, filepath.FromSlash(tornSkillDir))
	files := map[string]dirSrcFile{}
	must(s.t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = dirSrcFile{data: data, exec: info.Mode()&0o100 != 0}
		return nil
	}))
	return files
}

// setLine replaces the one line of data that starts with prefix by line.
func setLine(data []byte, prefix, line string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	n := 0
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			lines[i] = line + "\n"
			n++
		}
	}
	if n != 1 {
		panic(fmt.Sprintf("setLine: %d lines start with %q", n, prefix))
	}
	return []byte(strings.Join(lines, ""))
}

// startWatcher starts the real binary as a watcher on ws with its default timings
// and returns a function that stops it with SIGTERM.
func (s *tornSuite) startWatcher(ws string, args ...string) func() error {
	t := s.t
	s.addr = testkit.FreeAddr(t)
	var logs syncbuffer.Buffer
	w := exec.Command(testkit.Binary(t), append([]string{"--workspace", ws, "reconcile", "--health-addr", s.addr}, args...)...)
	w.Stdout, w.Stderr = &logs, &logs
	must(t, w.Start())
	exited := make(chan error, 1)
	go func() { exited <- w.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			w.Process.Kill()
			<-exited
		}
	})
	awaitReady(t, s.addr)
	return func() error {
		stopped = true
		must(t, w.Process.Signal(syscall.SIGTERM))
		select {
		case err := <-exited:
			if err != nil {
				return fmt.Errorf("%w\n%s", err, logs.String())
			}
			return nil
		case <-time.After(30 * time.Second):
			w.Process.Kill()
			return fmt.Errorf("still running 30 s after SIGTERM: %v", <-exited)
		}
	}
}

func (s *tornSuite) read(rel string) []byte {
	data, err := os.ReadFile(filepath.Join(s.ws, filepath.FromSlash(rel)))
	must(s.t, err)
	return data
}

func (s *tornSuite) fail(format string, args ...any) {
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

// done ends a case; it failed when it found anything wrong.
func (s *tornSuite) done(name string) {
	s.cases++
	if len(s.problems) > 0 {
		s.failed++
		if len(s.problems) > 12 {
			s.problems = append(s.problems[:12], fmt.Sprintf("… and %d more", len(s.problems)-12))
		}
		s.t.Errorf("%s:\n  %s", name, strings.Join(s.problems, "\n  "))
		s.problems = nil
	}
}

// tornWrite saves data to p the way an editor that writes in place does: it
// truncates the file, writes the first cut bytes, pauses, then writes the rest.
func tornWrite(p string, data []byte, cut int, pause time.Duration) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(data[:cut])
	time.Sleep(pause)
	f.Write(data[cut:])
}

// documentEnd is the offset right after the n-th "---" line of data: the end of
// its first n documents.
func documentEnd(data []byte, n int) int {
	at := 0
	for range n {
		i := bytes.Index(data[at:], []byte("\n---\n"))
		if i < 0 {
			return len(data)
		}
		at += i + 1
	}
	return at
}

// retitle replaces the title that starts with old with title in a registry file.
func retitle(data []byte, old, title string) []byte {
	from := []byte("  title: " + old)
	i := bytes.Index(data, from)
	if i < 0 {
		panic("retitle: no title " + old)
	}
	end := i + bytes.IndexByte(data[i:], '\n')
	return slices.Concat(data[:i], []byte("  title: "+title), data[end:])
}

// genFile is what a generated file holds, and whether it has its owner's
// execute bit (a supporting script keeps it).
type genFile struct {
	data []byte
	exec bool
}

// generated reads every file in the target directories of ws, by workspace path.
func generated(t *testing.T, ws string) map[string]genFile {
	t.Helper()
	files := map[string]genFile{}
	for _, dir := range []string{".claude/skills", ".qwen/skills", ".agents/skills"} {
		err := filepath.WalkDir(filepath.Join(ws, dir), func(p string, d fs.DirEntry, err error) error {
			if os.IsNotExist(err) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(ws, p)
			files[filepath.ToSlash(rel)] = genFile{data: data, exec: info.Mode()&0o100 != 0}
			return nil
		})
		must(t, err)
	}
	return files
}

// fileMonitor polls a set of files until stopped and remembers each one it found
// missing.
type fileMonitor struct {
	stopCh   chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	vanished map[string]bool
	polls    int
}

// monitor starts polling the workspace paths of ws in paths, back to back: a few
// milliseconds a round for thousands of files.
func monitor(ws string, paths []string) *fileMonitor {
	m := &fileMonitor{stopCh: make(chan struct{}), done: make(chan struct{}), vanished: map[string]bool{}}
	full := make([]string, len(paths))
	for i, p := range paths {
		full[i] = filepath.Join(ws, filepath.FromSlash(p))
	}
	go func() {
		defer close(m.done)
		for {
			select {
			case <-m.stopCh:
				return
			default:
			}
			for i, p := range full {
				if _, err := os.Lstat(p); err != nil {
					m.mu.Lock()
					m.vanished[paths[i]] = true
					m.mu.Unlock()
				}
			}
			m.mu.Lock()
			m.polls++
			m.mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}()
	return m
}

// rounds is how many times every file was polled.
func (m *fileMonitor) rounds() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.polls
}

// stop ends the polling and lists what was found missing, sorted.
func (m *fileMonitor) stop() []string {
	close(m.stopCh)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.vanished))
	for p := range m.vanished {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// checkoutCapabilities is how many registry files a checkout rewrites.
const checkoutCapabilities = 2000

// checkout switches a workspace of checkoutCapabilities registry files, one
// capability each, between two git branches under a watcher: on the second branch
// every title differs, twenty capabilities are gone and twenty are new. git
// rewrites each file by unlinking it and creating it again, file after file.
func (s *tornSuite) checkout() {
	ws := filepath.Join(s.t.TempDir(), "checkout")
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/caps/*.yaml]\n  targets: [claude-code]\n  mcp: {server: checkout}\n"
	must(s.t, os.MkdirAll(ws, 0o755))
	must(s.t, os.WriteFile(filepath.Join(ws, "skillsync.yaml"), []byte(config), 0o644))
	must(s.t, checkoutRegistry(ws, false))
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=reliability", "-c", "user.email=reliability@example.invalid", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "main")
	git("checkout", "-q", "-b", "next")
	must(s.t, checkoutRegistry(ws, true))
	git("add", "-A")
	git("commit", "-q", "-m", "next")
	git("checkout", "-q", "main")
	onMain := s.expect(ws, nil)
	// The reference for the next branch is a copy, kept in a git work tree as the
	// workspace is, so that it gets the same files for git.
	next := filepath.Join(s.t.TempDir(), "next")
	must(s.t, os.CopyFS(next, os.DirFS(ws)))
	must(s.t, checkoutRegistry(next, true))
	onNext := s.expect(next, nil)
	must(s.t, workspacegen.Backdate(ws))

	// A short quiet period and wait, so the watcher runs several times while git is
	// still rewriting files, and reads the registry half checked out.
	stop := s.startWatcher(ws, "--debounce", "20ms", "--max-wait", "100ms")
	s.watchSave(ws, onNext, fmt.Sprintf("git checkout rewriting %d registry files", checkoutCapabilities), func() { git("checkout", "-q", "next") })
	s.watchSave(ws, onMain, "git checkout back", func() { git("checkout", "-q", "main") })
	if err := stop(); err != nil {
		s.fail("the watcher did not stop cleanly: %v", err)
	}
	s.done("the checkout watcher stopped with SIGTERM")
}

// checkoutRegistry writes registry/caps/ of ws for one of the two branches.
func checkoutRegistry(ws string, next bool) error {
	dir := filepath.Join(ws, "registry", "caps")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	first, suffix := 0, ""
	if next {
		first, suffix = 20, " on the next branch"
	}
	for i := first; i < first+checkoutCapabilities; i++ {
		doc := fmt.Sprintf("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: checkout.cap-%04d}\nspec:\n"+
			"  title: Capability %d%s\n  effect: read\n  input: {type: object, properties: {text: {type: string}}}\n"+
			"  mcp: {tool: cap_%04d}\n  skill: {alias: cap-%04d, argument: text}\n", i, i, suffix, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%04d.yaml", i)), []byte(doc), 0o644); err != nil {
			return err
		}
	}
	return nil
}
