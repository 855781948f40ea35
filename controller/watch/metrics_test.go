package watch

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
)

// scrape reads /metrics of tr through the Prometheus text parser.
func scrape(t *testing.T, tr *Tracker) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	tr.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return families
}

// value is the value of the series of name whose labels include labels
// (name, value pairs); found is false when there is none.
func value(families map[string]*dto.MetricFamily, name string, labels ...string) (v float64, found bool) {
	f := families[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			if !hasLabel(m, labels[i], labels[i+1]) {
				continue next
			}
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

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.Label {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// The metrics say what the endpoints say: the last run's result as one series
// per result, the files by state, the sources and MCP servers and whether each
// answers, and how changes are seen.
func TestMetricsSayWhatTheEndpointsSay(t *testing.T) {
	tr := &Tracker{}
	tr.SetBuild(BuildInfo{Version: "v1.2.3", Commit: "abc123"})
	tr.setWatch(watchState{Inotify: 3, Polled: 1, PollMS: 1500})
	tr.SetSource("tracker", errors.New("connect: EOF"))
	tr.SetSource("docs", nil)
	if _, found := value(scrape(t, tr), "skillsync_last_run_timestamp_seconds"); found {
		t.Error("a last run's time before any run")
	}
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr.Record(Report{Time: started, DurationMS: 20, Result: Conflicts,
		Counts:  map[string]int{"none": 4, "conflict": 1, "withheld": 2, "handWritten": 5, "deferred": 3, "create": 2},
		Sources: []SourceState{{Name: "team", Kind: "git", Digest: "0123abcd", Up: false}}})
	tr.Record(Report{Time: started, DurationMS: 30, Result: Conflicts, Counts: map[string]int{"create": 1}})
	tr.Record(Report{Time: started, DurationMS: 10, Result: Conflicts,
		Counts:  map[string]int{"none": 3, "update": 1, "delete": 1, "conflict": 1, "withheld": 2, "handWritten": 5, "deferred": 3},
		Sources: []SourceState{{Name: "team", Kind: "git", Digest: "0123abcd", Up: false}}})
	families := scrape(t, tr)

	want := []struct {
		name   string
		labels []string
		value  float64
	}{
		{"skillsync_build_info", []string{"version", "v1.2.3", "commit", "abc123"}, 1},
		{"skillsync_last_run_result", []string{"result", "conflicts"}, 1},
		{"skillsync_last_run_result", []string{"result", "converged"}, 0},
		{"skillsync_last_run_result", []string{"result", "invalid"}, 0},
		{"skillsync_last_run_timestamp_seconds", nil, float64(started.Unix())},
		{"skillsync_runs_total", []string{"result", "conflicts"}, 3},
		{"skillsync_runs_total", []string{"result", "failed"}, 0},
		{"skillsync_run_duration_seconds", nil, 3},
		{"skillsync_changes_applied_total", []string{"action", "create"}, 3},
		{"skillsync_files", []string{"state", "in_sync"}, 4},
		{"skillsync_files", []string{"state", "conflict"}, 1},
		{"skillsync_files", []string{"state", "withheld"}, 2},
		{"skillsync_files", []string{"state", "hand_written"}, 5},
		{"skillsync_pending_deletes", nil, 3},
		{"skillsync_source_up", []string{"source", "team", "kind", "git"}, 0},
		{"skillsync_source_info", []string{"source", "team", "kind", "git", "digest", "0123abcd"}, 1},
		{"skillsync_source_up", []string{"source", "tracker", "kind", "mcp"}, 0},
		{"skillsync_source_up", []string{"source", "docs", "kind", "mcp"}, 1},
		{"skillsync_watch_directories", []string{"mode", "inotify"}, 3},
		{"skillsync_watch_directories", []string{"mode", "polled"}, 1},
		{"skillsync_watch_polling", nil, 1},
		{"skillsync_watch_poll_interval_seconds", nil, 1.5},
		{"skillsync_ready", nil, 0},
	}
	for _, w := range want {
		if got, found := value(families, w.name, w.labels...); !found || got != w.value {
			t.Errorf("%s%v = %v (found %v), want %v", w.name, w.labels, got, found, w.value)
		}
	}
	if sum := families["skillsync_run_duration_seconds"].Metric[0].Histogram.GetSampleSum(); sum < 0.059 || sum > 0.061 {
		t.Errorf("run durations add up to %vs, want 0.06s", sum)
	}

	tr.SetSource("tracker", nil)
	tr.Record(Report{Time: started, Result: Converged, Counts: map[string]int{}})
	families = scrape(t, tr)
	for _, w := range []struct {
		name   string
		labels []string
		value  float64
	}{
		{"skillsync_ready", nil, 1},
		{"skillsync_last_run_result", []string{"result", "conflicts"}, 0},
		{"skillsync_last_run_result", []string{"result", "converged"}, 1},
		{"skillsync_source_up", []string{"source", "tracker", "kind", "mcp"}, 1},
	} {
		if got, found := value(families, w.name, w.labels...); !found || got != w.value {
			t.Errorf("once converged: %s%v = %v (found %v), want %v", w.name, w.labels, got, found, w.value)
		}
	}
	if _, found := value(families, "skillsync_source_up", "source", "team"); found {
		t.Error("a source the last run did not declare is still reported")
	}
}

// A run's report names each declared source with what the lock pins it to, as
// down the one the load could not read, and the others as unread: the load
// stopped before it knew; withheld skills and hand-written files are counted.
// A run that planned read every source.
func TestRunReportNamesTheSourcesAndWhichCannotBeRead(t *testing.T) {
	reg := &registry.Registry{Pinned: map[string]registry.LockedSource{
		"team":  {Name: "team", Git: "https://user:secret@git.example/team.git", Commit: "0123456789abcdef0123456789abcdef01234567"},
		"tools": {Name: "tools", OCI: "registry.example/tools:v1", Digest: "sha256:feed"},
	}}
	reg.Config.Spec.Sources = []registry.RemoteSource{
		{Name: "team", Git: "https://user:secret@git.example/team.git"},
		{Name: "tools", OCI: "registry.example/tools:v1"},
		{Name: "catalog", Index: "https://skills.example/.well-known/agent-skills/index.json"},
	}
	out := controller.Outcome{Inputs: controller.Inputs{Registry: reg},
		Err:         &registry.SourceError{Source: "tools", Err: errors.New("connection refused")},
		Withheld:    []desired.Withheld{{Skill: "a"}, {Skill: "b"}},
		HandWritten: []string{".claude/skills/mine/SKILL.md"}}
	r := runReport(out, time.Now(), time.Millisecond)
	want := []SourceState{
		{Name: "team", Kind: "git", Digest: "0123456789abcdef0123456789abcdef01234567", Unread: true},
		{Name: "tools", Kind: "oci", Digest: "sha256:feed", Up: false},
		{Name: "catalog", Kind: "index", Unread: true},
	}
	if len(r.Sources) != len(want) {
		t.Fatalf("sources %+v, want %+v", r.Sources, want)
	}
	for i := range want {
		if r.Sources[i] != want[i] {
			t.Errorf("source %d: %+v, want %+v", i, r.Sources[i], want[i])
		}
	}
	if r.Counts["withheld"] != 2 || r.Counts["handWritten"] != 1 {
		t.Errorf("counts %v: want 2 withheld, 1 hand-written", r.Counts)
	}
	out.Err, out.Planned = nil, true
	for _, s := range runReport(out, time.Now(), time.Millisecond).Sources {
		if !s.Up || s.Unread {
			t.Errorf("a run that planned reports %+v", s)
		}
	}
}
