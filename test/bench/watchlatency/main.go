package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit/benchkit"
)

func main() {
	saves := flag.Int("saves", 15, "registry saves per size")
	idle := flag.Duration("idle", 60*time.Second, "how long to measure an idle watcher's CPU")
	sizes := flag.String("sizes", "100,1000,10000", "numbers of capabilities; empty for none")
	skillDirs := flag.String("skilldirs", "1000", "numbers of whole skill directories (10 files each) for the supporting-file case; empty for none")
	runs := flag.Int("baseline-runs", 5, "reconcile --check runs for the baseline median")
	perFiles := flag.String("per-file", "1,50,1000", "capabilities per registry file, one series each; idle CPU is measured in the first")
	flag.Parse()

	tmp := benchkit.ScratchDir("skillsync-bench-")
	defer os.RemoveAll(tmp) // deleted only after every timed series
	bin := filepath.Join(tmp, "skillsync")
	benchkit.Check(benchkit.BuildAsReleased(bin))

	// Prepare every workspace before any timed series.
	type series struct{ n, perFile int }
	var all []series
	workspaces := map[series]string{}
	for i, perFile := range parseSizes(*perFiles) {
		for _, n := range parseSizes(*sizes) {
			s := series{n, perFile}
			all = append(all, s)
			workspaces[s] = prepare(filepath.Join(tmp, fmt.Sprintf("ws-%d-%d", n, i)), n, perFile)
		}
	}
	wholeSizes := parseSizes(*skillDirs)
	wholeWorkspaces := map[int]string{}
	for _, n := range wholeSizes {
		wholeWorkspaces[n] = prepareSkillDirs(filepath.Join(tmp, fmt.Sprintf("skilldirs-%d", n)), n)
	}

	var rows []row
	for _, s := range all {
		idleFor := *idle
		if s.perFile != all[0].perFile {
			idleFor = 0
		}
		rows = append(rows, measure(bin, workspaces[s], s.n, s.perFile, *saves, *runs, idleFor))
	}
	var wholeRows []skillDirRow
	for _, n := range wholeSizes {
		wholeRows = append(wholeRows, measureSkillDirs(bin, wholeWorkspaces[n], n, *saves))
	}
	if len(rows) > 0 {
		print(rows, *saves, *idle)
	}
	printSkillDirs(wholeRows, *saves)
}

// parseSizes reads a comma-separated list of sizes; an empty one is none.
func parseSizes(list string) []int {
	var ns []int
	for _, s := range strings.Split(list, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		benchkit.Check(err)
		ns = append(ns, n)
	}
	return ns
}

type row struct {
	n, perFile       int
	p50, p99, max    time.Duration
	baseline         time.Duration
	idleCPU          float64 // percent of one core
	idleTicks        int     // clock ticks of CPU over the idle window
	rssKB, peakRSSKB int     // KiB, as /proc gives them
	runsDuringSeries int
	fullDuringSeries int // of those, the passes that read the whole workspace
}

// measure times saves in the workspace ws of n capabilities, perFile to a file;
// with idle 0 it does not measure the idle watcher.
func measure(bin, ws string, n, perFile, saves, baselineRuns int, idle time.Duration) row {
	r := row{n: n, perFile: perFile}
	// Baseline, in the same script: one full pass that reads, renders, scans and
	// plans, but writes nothing (the watcher's run minus the writes).
	benchkit.Check(exec.Command(bin, "--workspace", ws, "reconcile", "--once").Run())
	var base []time.Duration
	for range baselineRuns {
		start := time.Now()
		benchkit.Check(exec.Command(bin, "--workspace", ws, "reconcile", "--check").Run())
		base = append(base, time.Since(start))
	}
	r.baseline = benchkit.Percentile(base, 50)

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

	var lat []time.Duration
	for i := range saves {
		capability := (i * 7) % n
		title := fmt.Sprintf("Capability %d, save %d", capability, i)
		start := time.Now()
		save(ws, capability, n, perFile, title)
		awaitFiles(ws, capability, title)
		lat = append(lat, time.Since(start))
	}
	r.p50, r.p99, r.max = benchkit.Percentile(lat, 50), benchkit.Percentile(lat, 99), benchkit.Percentile(lat, 100)

	time.Sleep(2 * time.Second) // let the last runs settle, and log, before measuring idle
	// The watcher's first run, before the saves, is not one of them.
	r.runsDuringSeries = strings.Count(logs.String(), `"msg":"reconcile finished"`) - 1
	r.fullDuringSeries = strings.Count(logs.String(), `"full":true`) - 1
	r.idleTicks = -1
	if idle > 0 {
		before := cpuTicks(watcher.Process.Pid)
		time.Sleep(idle)
		after := cpuTicks(watcher.Process.Pid)
		r.idleTicks = after - before
		r.idleCPU = float64(r.idleTicks) / 100 / idle.Seconds() * 100 // USER_HZ is 100
	}
	r.rssKB, r.peakRSSKB = memory(watcher.Process.Pid)
	return r
}

// prepare writes a workspace with n capabilities, perFile to a registry file.
func prepare(dir string, n, perFile int) string {
	benchkit.Check(os.MkdirAll(filepath.Join(dir, "registry"), 0o755))
	benchkit.Check(os.WriteFile(filepath.Join(dir, "skillsync.yaml"), []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  targets: [claude-code, qwen-code, agents]\n  mcp: {server: bench}\n"), 0o644))
	for f := 0; f*perFile < n; f++ {
		writeRegistryFile(dir, f, n, perFile, -1, "")
	}
	return dir
}

func registryPath(dir string, file int) string {
	return filepath.Join(dir, "registry", fmt.Sprintf("caps-%04d.yaml", file))
}

// writeRegistryFile writes registry file f; capability changed gets title.
func writeRegistryFile(dir string, f, n, perFile, changed int, title string) {
	var b strings.Builder
	for i := f * perFile; i < min((f+1)*perFile, n); i++ {
		t := fmt.Sprintf("Capability %d", i)
		if i == changed {
			t = title
		}
		fmt.Fprintf(&b, "---\napiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: bench.cap%d}\nspec:\n  title: %q\n  effect: read\n"+
			"  input: {type: object, properties: {text: {type: string}}}\n  mcp: {tool: cap_%d}\n  skill: {alias: cap-%d, argument: text}\n", i, t, i, i)
	}
	path := registryPath(dir, f)
	benchkit.Check(os.WriteFile(path+".swp", []byte(b.String()), 0o644))
	benchkit.Check(os.Rename(path+".swp", path)) // save by rename, as editors do
}

func save(dir string, capability, n, perFile int, title string) {
	writeRegistryFile(dir, capability/perFile, n, perFile, capability, title)
}

// awaitFiles waits until all three files of the capability's skill hold title.
func awaitFiles(dir string, capability int, title string) {
	deadline := time.Now().Add(time.Minute)
	for _, target := range []string{".claude/skills", ".qwen/skills", ".agents/skills"} {
		benchkit.AwaitText(filepath.Join(dir, target, fmt.Sprintf("cap-%d", capability), "SKILL.md"), title, deadline)
	}
}

func cpuTicks(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	benchkit.Check(err)
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	return utime + stime
}

func memory(pid int) (rss, peak int) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	benchkit.Check(err)
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			rss, _ = strconv.Atoi(f[1])
		}
		if len(f) >= 2 && f[0] == "VmHWM:" {
			peak, _ = strconv.Atoi(f[1])
		}
	}
	return rss, peak
}

func print(rows []row, saves int, idle time.Duration) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "capabilities\tper file\tfiles\tsave→disk p50\tp99\tmax\tp50 / first size's\t--check run (median)\tp50 / --check\truns (full)\tidle CPU (%s)\tRSS MB\tpeak RSS MB\t\n", idle)
	firstOf := map[int]row{}
	for _, r := range rows {
		if _, ok := firstOf[r.perFile]; !ok {
			firstOf[r.perFile] = r
		}
		idleCPU := "–"
		if r.idleTicks >= 0 {
			idleCPU = fmt.Sprintf("%.2f%%", r.idleCPU)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%.2f×\t%s\t%.1f×\t%d (%d)\t%s\t%.1f\t%.1f\t\n", r.n, r.perFile, 3*r.n, benchkit.Ms(r.p50), benchkit.Ms(r.p99), benchkit.Ms(r.max),
			float64(r.p50)/float64(firstOf[r.perFile].p50), benchkit.Ms(r.baseline), float64(r.p50)/float64(r.baseline), r.runsDuringSeries, r.fullDuringSeries,
			idleCPU, mb(r.rssKB), mb(r.peakRSSKB))
	}
	tw.Flush()
	fmt.Printf("%d saves per size, each a rename of one registry file changing one title; latency is until all 3 files of that skill hold it.\n", saves)
	fmt.Printf("RSS in MB of 10^6 bytes; a full run reads the whole workspace, the others only what the events named.\n\n")
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	fmt.Println("Targets, as the run judged them:")
	for i, r := range rows {
		if i+1 < len(rows) && rows[i+1].perFile == r.perFile {
			continue // the last size of its series
		}
		first := firstOf[r.perFile]
		ratio := float64(r.p50) / float64(first.p50)
		fmt.Printf("- %d per file: save → disk p50 at N=%d ≤ 1.5× the p50 at N=%d: %.2f× (%s vs %s): %s.\n", r.perFile, r.n, first.n, ratio, benchkit.Ms(r.p50), benchkit.Ms(first.p50), verdict(ratio <= 1.5))
		fmt.Printf("- %d per file: peak RSS at N=%d ≤ 60 MB: %.1f MB: %s.\n", r.perFile, r.n, mb(r.peakRSSKB), verdict(mb(r.peakRSSKB) <= 60))
	}
	quiet := true
	var ticks []string
	for _, r := range rows {
		if r.idleTicks < 0 {
			continue
		}
		quiet = quiet && r.idleTicks == 0
		ticks = append(ticks, fmt.Sprintf("N=%d: %d", r.n, r.idleTicks))
	}
	fmt.Printf("- idle CPU 0 (no clock tick over the %s idle window) at every N (%s): %s.\n", idle, strings.Join(ticks, ", "), verdict(quiet))
}

// mb is KiB in MB of 10^6 bytes.
func mb(kib int) float64 { return float64(kib) * 1024 / 1e6 }
