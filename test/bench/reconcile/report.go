//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func render(results []result, groups []perFileGroup, peersText, sizes, perFileSizes string, runs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# skillsync benchmark\n\n%s\n", machine())
	perFiles := []string{fmt.Sprint(workspacegen.PerFile)}
	for _, g := range groups {
		perFiles = append(perFiles, fmt.Sprint(g.perFile))
	}
	fmt.Fprintf(&b, "Command: `go run ./test/bench/reconcile -sizes %s -per-file %s -per-file-sizes %s -runs %d` (`make bench`): N capabilities, %d to a registry file. Each figure is the median of %d runs after %d warm-up run; the write floor, the two copies beside it, the --check of a workspace with nothing generated and the cold run are timed in turn, round by round, and so are the read floor and the two no-ops, so that the disk's drift slows each alike; spread is min–max; × floor is the median over the floor's median for the same N (write floor for cold runs, read floor otherwise); every run starts after an untimed sync(2), so none pays for writing back data an earlier one left; peak RSS is the largest of the runs, in MB of 10^6 bytes; files written counts files created, replaced, changed or deleted in the workspace, state files included.\n\n",
		sizes, strings.Join(perFiles, ","), perFileSizes, runs, workspacegen.PerFile, runs, warmup)
	b.WriteString(peersText + "\n")
	b.WriteString(tableHead)
	for _, r := range results {
		b.WriteString(row(results, r) + "\n")
	}
	b.WriteString("\n## Targets\n\n")
	for _, line := range targets(results) {
		b.WriteString("- " + line + "\n")
	}
	for _, g := range groups {
		fmt.Fprintf(&b, "\n## %d capabilities to a registry file\n\n", g.perFile)
		b.WriteString("The same series, the floors measured again beside them; no peers (they read the generated tree, the same whatever the registry's layout).\n\n")
		b.WriteString(tableHead)
		for _, r := range g.results {
			b.WriteString(row(g.results, r) + "\n")
		}
	}
	return b.String()
}

const tableHead = "| N | tool | scenario | median ms | spread ms | × floor | skillsync ÷ peer | peak RSS MB | files written |\n" +
	"|---:|---|---|---:|---:|---:|---:|---:|---:|\n"

// row is r's line of the table of results.
func row(results []result, r result) string {
	if r.failed != "" {
		return fmt.Sprintf("| %d | %s | %s | failed: %s | | | | | |", r.n, r.tool, r.scenario, oneLine(r.failed))
	}
	lo, hi := r.spread()
	return fmt.Sprintf("| %d | %s | %s | %s | %s–%s | %s | %s | %.1f | %d |", r.n, r.tool, r.scenario, ms(r.median()), ms(lo), ms(hi),
		ratio(r.median(), floorOf(results, r)), peerRatio(results, r), megabytes(r.peakRSSKB()), r.maxWritten())
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", "/")
}

func find(results []result, n int, tool, scenarioPrefix string) (result, bool) {
	for _, r := range results {
		if r.n == n && r.tool == tool && strings.HasPrefix(r.scenario, scenarioPrefix) && r.failed == "" {
			return r, true
		}
	}
	return result{}, false
}

func floorOf(results []result, r result) time.Duration {
	f, ok := find(results, r.n, "floor", r.floor+" floor")
	if !ok {
		return 0
	}
	return f.median()
}

func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// peerRatio compares a peer's row with skillsync doing the same: cold with cold,
// no-op with no-op.
func peerRatio(results []result, r result) string {
	if r.tool != "rulesync" && r.tool != "ruler" {
		return ""
	}
	kind := strings.Fields(r.scenario)[0] // "cold" or "no-op"
	s, ok := find(results, r.n, "skillsync", kind+" reconcile")
	if !ok {
		return "–"
	}
	return ratio(s.median(), r.median())
}

func targets(results []result) []string {
	var lines []string
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	noopWrites, allZero := []string{}, true
	for _, r := range results {
		if r.tool == "skillsync" && strings.HasPrefix(r.scenario, "no-op") && r.failed == "" {
			noopWrites = append(noopWrites, fmt.Sprintf("N=%d: %d", r.n, r.maxWritten()))
			allZero = allZero && r.maxWritten() == 0
		}
	}
	lines = append(lines, fmt.Sprintf("No-op reconcile writes 0 files at every N (%s): %s.", strings.Join(noopWrites, ", "), verdict(allZero)))
	readFloor, _ := find(results, 1000, "floor", "read floor")
	if r, ok := find(results, 1000, "skillsync", "no-op"); ok {
		f := floorOf(results, r)
		lines = append(lines, fmt.Sprintf("No-op at N=1000 ≤ 1× the read floor: %s× (%s ms vs %s ms; median of the per-round ratios %s×): %s.",
			ratio(r.median(), f), ms(r.median()), ms(f), pairedRatio(r.series, readFloor.series), verdict(r.median() <= f)))
	}
	if r, ok := find(results, 1000, "skillsync", "first no-op"); ok {
		f := floorOf(results, r)
		lines = append(lines, fmt.Sprintf("First no-op at N=1000 (no index yet) ≤ 1.5× the read floor: %s× (%s ms vs %s ms; median of the per-round ratios %s×): %s.",
			ratio(r.median(), f), ms(r.median()), ms(f), pairedRatio(r.series, readFloor.series), verdict(2*r.median() <= 3*f)))
	}
	if r, ok := find(results, 1000, "skillsync", "cold"); ok {
		f := floorOf(results, r)
		lines = append(lines, fmt.Sprintf("Cold at N=1000 ≤ 2× the write floor: %s× (%s ms vs %s ms): %s.", ratio(r.median(), f), ms(r.median()), ms(f), verdict(r.median() <= 2*f)))
		if s, ok := find(results, 1000, "baseline", "cp -r of the generated tree, then sync"); ok {
			lines = append(lines, fmt.Sprintf("Cold at N=1000 ≤ 1.2× cp -r, then sync -f: %s× (%s ms vs %s ms; median of the per-round ratios %s×): %s.",
				ratio(r.median(), s.median()), ms(r.median()), ms(s.median()), pairedRatio(r.series, s.series), verdict(5*r.median() <= 6*s.median())))
			a, atomic := find(results, 1000, "baseline", "atomic copy")
			c, checked := find(results, 1000, "skillsync", "reconcile --check of a workspace with nothing generated")
			if atomic && checked {
				lines = append(lines, fmt.Sprintf("(Not a target: checking every input before the first write, then copying without ever leaving a torn file, the --check of a workspace with nothing generated and the atomic copy one after the other, takes %s ms + %s ms, %s× cp -r, then sync -f; median of the per-round ratios %s×. The cold run is %s× that.)",
					ms(c.median()), ms(a.median()), ratio(c.median()+a.median(), s.median()), pairedSumRatio(c.series, a.series, s.series), ratio(r.median(), c.median()+a.median())))
			}
		}
		if p, ok := find(results, 1000, "rulesync", "cold"); ok {
			lines = append(lines, fmt.Sprintf("Cold at N=1000 at least 10× faster than rulesync: %.1f× (%s ms vs %s ms): %s.",
				float64(p.median())/float64(r.median()), ms(r.median()), ms(p.median()), verdict(10*r.median() <= p.median())))
		}
	}
	worst, worstName := 0.0, ""
	for _, r := range results {
		if r.tool != "skillsync" || r.n != 10000 || r.failed != "" {
			continue
		}
		if base, ok := find(results, 1000, "skillsync", r.scenario); ok {
			if x := float64(r.median()) / float64(base.median()); x > worst {
				worst, worstName = x, r.scenario
			}
		}
	}
	if worstName != "" {
		lines = append(lines, fmt.Sprintf("N=10000 ≤ 12× N=1000 in every scenario: worst %.1f× (%s): %s.", worst, worstName, verdict(worst <= 12)))
	}
	var peak int64
	for _, r := range results {
		if r.tool == "skillsync" && r.n == 10000 {
			peak = max(peak, r.peakRSSKB())
		}
	}
	if peak > 0 {
		lines = append(lines, fmt.Sprintf("Peak RSS at N=10000 ≤ 60 MB: %.1f MB: %s.", megabytes(peak), verdict(megabytes(peak) <= 60)))
	}
	return lines
}

// megabytes is a size getrusage gives in KiB, in MB of 10^6 bytes.
func megabytes(kib int64) float64 { return float64(kib) * 1024 / 1e6 }

// machine describes where the figures come from.
func machine() string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
				break
			}
		}
	}
	kernel, _ := exec.Command("uname", "-sr").Output()
	fs, _ := exec.Command("sh", "-c", "df -T \"${TMPDIR:-/tmp}\" | awk 'NR==2 {print $2}'").Output()
	return fmt.Sprintf("Machine: %s, %d CPUs, %s, %s filesystem for the workspaces; %s; %s.\n",
		cpu, runtime.NumCPU(), strings.TrimSpace(string(kernel)), strings.TrimSpace(string(fs)), runtime.Version(), time.Now().UTC().Format("2006-01-02"))
}

// pairedRatio is the median over rounds of a's run over b's, for two series timed
// in turn: samples are kept in the order of the rounds.
func pairedRatio(a, b series) string { return pairedSumRatio(a, series{}, b) }

// pairedSumRatio is the median over rounds of a's and b's runs together over
// c's, for series timed in turn; b may have no samples, for a's alone.
func pairedSumRatio(a, b, c series) string {
	if len(a.samples) == 0 || len(a.samples) != len(c.samples) || len(b.samples) != 0 && len(b.samples) != len(a.samples) {
		return "–"
	}
	var rs []float64
	for i := range a.samples {
		sum := a.samples[i].wall
		if len(b.samples) > 0 {
			sum += b.samples[i].wall
		}
		rs = append(rs, float64(sum)/float64(c.samples[i].wall))
	}
	slices.Sort(rs)
	return fmt.Sprintf("%.2f", rs[len(rs)/2])
}
