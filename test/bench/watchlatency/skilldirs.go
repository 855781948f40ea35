package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit/benchkit"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

var targets = []string{".claude/skills", ".qwen/skills", ".agents/skills"}

// skillDirRow is the whole-skills case: saves of a supporting file and of a
// SKILL.md in the sources of a workspace of whole skill directories, taken in turn.
type skillDirRow struct {
	n int
	// file: until the saved file is in all three targets; whole: until, besides,
	// each target's SKILL.md holds what the save changes in it (the manifest line
	// with the supporting file's new digest; for a SKILL.md, the file itself).
	supportFile, supportWhole, skillMD []time.Duration
	runsDuringSeries, fullDuringSeries int
}

// prepareSkillDirs writes a workspace of n whole skill directories.
func prepareSkillDirs(dir string, n int) string {
	benchkit.Check(workspacegen.WriteSkillDirs(dir, n))
	return dir
}

// measureSkillDirs starts a watcher on the converged workspace ws and saves, in
// turn, one supporting file and one SKILL.md of different skills, saves times
// each, the order of the two swapped every round.
func measureSkillDirs(bin, ws string, n, saves int) skillDirRow {
	r := skillDirRow{n: n}
	benchkit.Check(exec.Command(bin, "--workspace", ws, "reconcile", "--once").Run())
	addr := benchkit.Must(benchkit.FreeAddr())
	watcher := exec.Command(bin, "--workspace", ws, "reconcile", "--health-addr", addr, "--log-format", "json")
	var logs syncbuffer.Buffer
	watcher.Stderr = &logs
	benchkit.Check(watcher.Start())
	defer func() {
		watcher.Process.Signal(syscall.SIGTERM)
		watcher.Wait()
	}()
	benchkit.AwaitReady(addr)

	support := func(i int) {
		k := (i*7 + 1) % n
		note := fmt.Sprintf("Supporting file of skill %d, save %d", k, i)
		data := workspacegen.SupportingText(k, note)
		sum := sha256.Sum256(data)
		manifest := "sha256=" + hex.EncodeToString(sum[:]) + " mode=644 path=" + workspacegen.SupportingFile
		start := time.Now()
		benchkit.Check(workspacegen.WriteSkillDirFile(ws, k, workspacegen.SupportingFile, data))
		awaitInTargets(ws, k, workspacegen.SupportingFile, note)
		r.supportFile = append(r.supportFile, time.Since(start))
		awaitInTargets(ws, k, "SKILL.md", manifest)
		r.supportWhole = append(r.supportWhole, time.Since(start))
	}
	skill := func(i int) {
		k := (i*7 + 4) % n
		note := fmt.Sprintf("SKILL.md of skill %d, save %d", k, i)
		start := time.Now()
		benchkit.Check(workspacegen.WriteSkillDirFile(ws, k, "SKILL.md", workspacegen.SkillMD(k, note)))
		awaitInTargets(ws, k, "SKILL.md", note)
		r.skillMD = append(r.skillMD, time.Since(start))
	}
	for i := range saves {
		if i%2 == 0 {
			support(i)
			time.Sleep(300 * time.Millisecond) // the run finishes before the next save
			skill(i)
		} else {
			skill(i)
			time.Sleep(300 * time.Millisecond)
			support(i)
		}
		time.Sleep(300 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // let the last run log
	r.runsDuringSeries = strings.Count(logs.String(), `"msg":"reconcile finished"`) - 1
	r.fullDuringSeries = strings.Count(logs.String(), `"full":true`) - 1
	return r
}

// awaitInTargets waits until rel of skill directory k holds text in all three targets.
func awaitInTargets(ws string, k int, rel, text string) {
	deadline := time.Now().Add(time.Minute)
	for _, target := range targets {
		benchkit.AwaitText(filepath.Join(ws, target, workspacegen.SkillDirName(k), rel), text, deadline)
	}
}

func printSkillDirs(rows []skillDirRow, saves int) {
	if len(rows) == 0 {
		return
	}
	fmt.Println("Whole skill directories (spec.skillDirs, 10 files a skill, 3 targets):")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "skills\tfiles\tSKILL.md save→disk p50\tp99\tsupporting file save→disk p50\tp99\t÷ SKILL.md\tsupporting, skill whole p50\tp99\t÷ SKILL.md\truns (full)\t\n")
	for _, r := range rows {
		s, f, w := benchkit.Percentile(r.skillMD, 50), benchkit.Percentile(r.supportFile, 50), benchkit.Percentile(r.supportWhole, 50)
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%.2f×\t%s\t%s\t%.2f×\t%d (%d)\t\n", r.n, workspacegen.SkillDirsFiles(r.n),
			benchkit.Ms(s), benchkit.Ms(benchkit.Percentile(r.skillMD, 99)),
			benchkit.Ms(f), benchkit.Ms(benchkit.Percentile(r.supportFile, 99)), float64(f)/float64(s),
			benchkit.Ms(w), benchkit.Ms(benchkit.Percentile(r.supportWhole, 99)), float64(w)/float64(s),
			r.runsDuringSeries, r.fullDuringSeries)
	}
	tw.Flush()
	fmt.Printf("%d saves of each kind per size, in turn (the order swapped every round), each by rename: %s of one skill, or SKILL.md of another, one line added.\n", saves, workspacegen.SupportingFile)
	fmt.Println("save→disk is until the saved file holds the line in all 3 targets; skill whole, until each target's SKILL.md names the supporting file's new digest too.")
	fmt.Println()
	fmt.Println("Targets, as the run judged them:")
	for _, r := range rows {
		s, w := benchkit.Percentile(r.skillMD, 50), benchkit.Percentile(r.supportWhole, 50)
		ratio := float64(w) / float64(s)
		verdict := "NOT met"
		switch {
		case ratio <= 1:
			verdict = "met"
		case ratio <= 1.1:
			verdict = "met within 10% (one run's noise), not strictly"
		}
		fmt.Printf("- a changed supporting file on disk (skill whole) as fast as a changed SKILL.md at N=%d: p50 %.2f× (%s vs %s): %s.\n",
			r.n, ratio, benchkit.Ms(w), benchkit.Ms(s), verdict)
	}
}
