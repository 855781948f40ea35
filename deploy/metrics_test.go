//go:build linux

package deploy_test

// The metrics, alerts and dashboard against the real watcher: the skillsync
// binary watches a workspace in a temporary directory, and its /metrics is read
// through the Prometheus text parser, as Prometheus reads it.

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit"
)

// TestMain removes the binaries the tests of the package built.
func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBinaries()
	os.Exit(code)
}

// metrics is one scrape, by metric family name.
type metrics map[string]*dto.MetricFamily

// value is the value of the first series of name whose labels include labels
// (name, value pairs); found is false when there is none.
func (ms metrics) value(name string, labels ...string) (v float64, found bool) {
	f := ms[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.Metric {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// is tells whether the series of name with labels has value v.
func (ms metrics) is(name string, v float64, labels ...string) bool {
	got, found := ms.value(name, labels...)
	return found && got == v
}

func hasLabels(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		if !slices.ContainsFunc(m.Label, func(l *dto.LabelPair) bool { return l.GetName() == labels[i] && l.GetValue() == labels[i+1] }) {
			return false
		}
	}
	return true
}

// watcher is a skillsync reconcile --watch of the test's, and where its
// /metrics is.
type watcher struct {
	metricsURL string
	logs       *syncbuffer.Buffer
}

// startWatcher runs the skillsync binary as the watcher of ws, with the health
// address and args, until the test ends.
func startWatcher(t *testing.T, ws string, args ...string) *watcher {
	t.Helper()
	addr := testkit.FreeAddr(t)
	logs := &syncbuffer.Buffer{}
	cmd := exec.Command(testkit.Binary(t), append([]string{"reconcile", "--watch", "--workspace", ws, "--health-addr", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("watcher after SIGTERM: %v\n%s", err, logs)
		}
	})
	return &watcher{metricsURL: "http://" + addr + "/metrics", logs: logs}
}

// scrape reads /metrics once; an error is one the test may wait out (the
// server not listening yet).
func (w *watcher) scrape() (metrics, string, error) {
	resp, err := http.Get(w.metricsURL)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("/metrics: %s", resp.Status)
	}
	var text strings.Builder
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(io.TeeReader(resp.Body, &text))
	return families, text.String(), err
}

// await scrapes until cond holds of the metrics, and fails the test with the
// last scrape and the watcher's log if it does not within a minute: the limit
// bounds a condition, it measures nothing.
func (w *watcher) await(t *testing.T, what string, cond func(metrics) bool) metrics {
	t.Helper()
	var last string
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var ms metrics
		if ms, last, err = w.scrape(); err == nil && cond(ms) {
			return ms
		}
	}
	t.Fatalf("%s: not within a minute (last error %v)\nlast scrape:\n%s\nwatcher log:\n%s", what, err, last, w.logs)
	return nil
}

// exampleWithMCPSource is the example workspace with an MCP server that cannot
// start, followed by the watcher: a source that is down.
func exampleWithMCPSource(t *testing.T) string {
	t.Helper()
	ws := testkit.ExampleWorkspace(t)
	config := filepath.Join(ws, "skillsync.yaml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, "  mcpSources:\n    - {name: docs, command: "+filepath.Join(t.TempDir(), "no-such-mcp-server")+"}\n"...)
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func converged(ms metrics) bool { return ms.is("skillsync_last_run_result", 1, "result", "converged") }

// A watcher's first pass converges the example, and /metrics says so; a
// generated file edited by hand is then a conflict, counted and named as the
// last run's result, and a SKILL.md a person adds is hand-written. The MCP
// server that cannot start is down throughout.
func TestWatcherMetricsFollowTheWorkspace(t *testing.T) {
	ws := exampleWithMCPSource(t)
	w := startWatcher(t, ws)
	ms := w.await(t, "the first pass converges", converged)
	for _, c := range []struct {
		name   string
		labels []string
		value  float64
	}{
		{"skillsync_last_run_result", []string{"result", "conflicts"}, 0},
		{"skillsync_last_run_result", []string{"result", "invalid"}, 0},
		{"skillsync_files", []string{"state", "conflict"}, 0},
		{"skillsync_files", []string{"state", "hand_written"}, 0},
		{"skillsync_pending_deletes", nil, 0},
		{"skillsync_source_up", []string{"source", "docs", "kind", "mcp"}, 0},
		{"skillsync_source_info", []string{"source", "docs", "kind", "mcp"}, 1},
		{"skillsync_watch_polling", nil, 0},
		{"skillsync_watch_poll_asked", nil, 0},
		{"skillsync_watch_directories", []string{"mode", "polled"}, 0},
		{"skillsync_ready", nil, 0}, // the MCP server is down
		{"skillsync_build_info", nil, 1},
	} {
		if !ms.is(c.name, c.value, c.labels...) {
			v, found := ms.value(c.name, c.labels...)
			t.Errorf("after the first pass: %s%v = %v (found %v), want %v", c.name, c.labels, v, found, c.value)
		}
	}
	for _, c := range []struct {
		name   string
		labels []string
	}{
		{"skillsync_files", []string{"state", "in_sync"}},
		{"skillsync_files", []string{"state", "withheld"}}, // the example's profile holds skills back
		{"skillsync_watch_directories", []string{"mode", "inotify"}},
		{"skillsync_runs_total", []string{"result", "converged"}},
		{"skillsync_run_duration_seconds", nil},
		{"skillsync_last_run_timestamp_seconds", nil},
		{"skillsync_changes_applied_total", []string{"action", "create"}},
	} {
		if v, _ := ms.value(c.name, c.labels...); v <= 0 {
			t.Errorf("after the first pass: %s%v = %v, want more than 0", c.name, c.labels, v)
		}
	}

	edited := filepath.Join(ws, ".claude/skills/intent/SKILL.md")
	data, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, append(data, "\nA line of my own.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, ws, ".claude/skills/mine/SKILL.md", []byte("---\nname: mine\ndescription: A skill of my own.\n---\nMine.\n"))
	ms = w.await(t, "the edited file is a conflict, the new one hand-written", func(ms metrics) bool {
		return ms.is("skillsync_last_run_result", 1, "result", "conflicts") && ms.is("skillsync_files", 1, "state", "hand_written")
	})
	if !ms.is("skillsync_files", 1, "state", "conflict") || !ms.is("skillsync_last_run_result", 0, "result", "converged") {
		t.Errorf("after the edit: conflicts %v, converged %v",
			ms["skillsync_files"], ms["skillsync_last_run_result"])
	}
	if v, _ := ms.value("skillsync_runs_total", "result", "conflicts"); v < 1 {
		t.Errorf("runs with conflicts: %v", v)
	}
}

// Under --poll every watched directory is polled, and /metrics says the
// watcher polls.
func TestWatcherMetricsSayItPolls(t *testing.T) {
	w := startWatcher(t, testkit.ExampleWorkspace(t), "--poll", "100ms")
	ms := w.await(t, "the first pass converges", converged)
	if !ms.is("skillsync_watch_polling", 1) || !ms.is("skillsync_watch_directories", 0, "mode", "inotify") ||
		!ms.is("skillsync_watch_poll_interval_seconds", 0.1) || !ms.is("skillsync_watch_poll_asked", 1) {
		t.Errorf("under --poll: polling %v, directories %v, interval %v, asked %v",
			ms["skillsync_watch_polling"], ms["skillsync_watch_directories"], ms["skillsync_watch_poll_interval_seconds"], ms["skillsync_watch_poll_asked"])
	}
	if v, _ := ms.value("skillsync_watch_directories", "mode", "polled"); v <= 0 {
		t.Errorf("polled directories: %v", v)
	}
	if !ms.is("skillsync_ready", 1) {
		t.Errorf("not ready after converging with no source down: %v", ms["skillsync_ready"])
	}
}

// metricName finds the metric names in a rule or a dashboard's query.
var metricName = regexp.MustCompile(`\bskillsync_[a-z_]+\b`)

// served tells whether the scrape has the metric name, a histogram's
// _bucket, _sum and _count series under the histogram's name.
func (ms metrics) served(name string) bool {
	if ms[name] != nil {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if f := ms[strings.TrimSuffix(name, suffix)]; strings.HasSuffix(name, suffix) && f != nil && f.GetType() == dto.MetricType_HISTOGRAM {
			return true
		}
	}
	return false
}

// Every metric the alerts and the dashboard read is one the watcher serves:
// renaming a metric fails here, not in a silent dashboard.
func TestRulesAndDashboardReadServedMetrics(t *testing.T) {
	w := startWatcher(t, exampleWithMCPSource(t))
	ms := w.await(t, "the first pass converges", converged)
	for _, file := range []string{"prometheus/skillsync-rules.yaml", "grafana/skillsync-dashboard.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		names := slices.Compact(slices.Sorted(slices.Values(metricName.FindAllString(string(data), -1))))
		if len(names) < 5 {
			t.Errorf("%s names only %v", file, names)
		}
		for _, name := range names {
			if !ms.served(name) {
				t.Errorf("%s reads %s, which the watcher does not serve", file, name)
			}
		}
	}
}
