package watch

// /metrics says for Prometheus what /healthz and /readyz say as JSON. The state
// metrics (the last run, the files by state, the sources, how changes are seen)
// are read from the Tracker at each scrape, so the two can never disagree; only
// what accumulates over runs, the runs by result, the changes made and the run
// durations, is counted as each report is recorded.
//
// Every label value is a name skillsync.yaml gives, a fixed word or a digest:
// never a source's address, which may carry credentials.

import (
	"net/http"
	"runtime"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/skillsync/skillsync/controller/plan"
)

// BuildInfo names the running binary in skillsync_build_info.
type BuildInfo struct {
	Version, Commit string
}

// SetBuild records which binary runs, for skillsync_build_info.
func (t *Tracker) SetBuild(b BuildInfo) {
	t.mu.Lock()
	t.build = b
	t.mu.Unlock()
}

// allResults are every Result a run can come to: skillsync_last_run_result has
// a series for each, 1 for the last run's and 0 for the others, so that an alert
// on one is never left without data.
var allResults = []Result{Converged, ChangesPending, Conflicts, Refused, Failed, Invalid, Settling, Stale}

// appliedActions are the changes skillsync_changes_applied_total counts.
var appliedActions = []plan.Action{plan.Create, plan.Update, plan.Delete, plan.Cleanup}

// fileStates map the label values of skillsync_files to the Report's counts. A
// file is in sync after the run when it needed no change or the run made it:
// the first run of a workspace creates every file, and leaves them in sync.
var fileStates = []struct {
	label  string
	counts []string
}{
	{"in_sync", []string{string(plan.None), string(plan.Create), string(plan.Update)}},
	{"conflict", []string{string(plan.Conflict)}},
	{"withheld", []string{"withheld"}},
	{"hand_written", []string{"handWritten"}},
}

var (
	buildInfoDesc = prometheus.NewDesc("skillsync_build_info",
		"The running skillsync: its version, commit and Go version; always 1.", []string{"version", "commit", "goversion"}, nil)
	readyDesc = prometheus.NewDesc("skillsync_ready",
		"1 while /readyz answers 200: the last run made every change it could and every MCP server answers.", nil, nil)
	lastResultDesc = prometheus.NewDesc("skillsync_last_run_result",
		"1 for what the last run came to, 0 for every other result.", []string{"result"}, nil)
	lastTimeDesc = prometheus.NewDesc("skillsync_last_run_timestamp_seconds",
		"When the last run started, in seconds since the Unix epoch.", nil, nil)
	filesDesc = prometheus.NewDesc("skillsync_files",
		"Files of the target directories after the last run, by state: in_sync (as wanted), conflict (kept as a person left it), "+
			"hand_written (a SKILL.md without a skillsync banner); withheld counts the skills the profile or the clients hold back.",
		[]string{"state"}, nil)
	pendingDeletesDesc = prometheus.NewDesc("skillsync_pending_deletes",
		"Deletes the last run left until the inputs settle.", nil, nil)
	sourceUpDesc = prometheus.NewDesc("skillsync_source_up",
		"1 when the last run read the source (git, oci, index) or the MCP server answers (mcp), 0 for the source a run could not read; "+
			"no series for a source the last run did not get to.",
		[]string{"source", "kind"}, nil)
	sourceInfoDesc = prometheus.NewDesc("skillsync_source_info",
		"What skillsync.lock resolves each source to (empty for an MCP server); always 1.", []string{"source", "kind", "digest"}, nil)
	watchDirsDesc = prometheus.NewDesc("skillsync_watch_directories",
		"Directories the watcher follows, by how: inotify events, or polled.", []string{"mode"}, nil)
	pollingDesc = prometheus.NewDesc("skillsync_watch_polling",
		"1 when the watcher polls any directory instead of receiving its events, else 0.", nil, nil)
	pollIntervalDesc = prometheus.NewDesc("skillsync_watch_poll_interval_seconds",
		"How often polled directories are listed.", nil, nil)
	pollAskedDesc = prometheus.NewDesc("skillsync_watch_poll_asked",
		"1 when --poll asks the watcher to poll rather than receive events, else 0.", nil, nil)
)

// trackerMetrics are the Tracker's metrics, in a registry of their own: a
// program that embeds the watcher keeps its default registry to itself.
type trackerMetrics struct {
	registry *prometheus.Registry
	runs     *prometheus.CounterVec
	changes  *prometheus.CounterVec
	duration prometheus.Histogram
}

// metricsOf makes t's metrics the first time they are needed: a Tracker is
// ready to use as its zero value.
func (t *Tracker) metricsOf() *trackerMetrics {
	t.metricsOnce.Do(func() { t.metrics = newTrackerMetrics(t) })
	return t.metrics
}

func newTrackerMetrics(t *Tracker) *trackerMetrics {
	m := &trackerMetrics{
		registry: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skillsync_runs_total", Help: "Runs since the watcher started, by result."},
			[]string{"result"}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skillsync_changes_applied_total",
			Help: "Changes made to the target directories since the watcher started, by action."}, []string{"action"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "skillsync_run_duration_seconds",
			Help:    "How long each run took, from reading the inputs to the last write.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}}),
	}
	// Every series a rate or an alert reads exists from the start, at 0.
	for _, r := range allResults {
		m.runs.WithLabelValues(string(r))
	}
	for _, a := range appliedActions {
		m.changes.WithLabelValues(string(a))
	}
	m.registry.MustRegister(m.runs, m.changes, m.duration, trackerCollector{t},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// record counts a run that ended. A Stale report is no run of the workspace:
// it is counted by result but takes no time.
func (m *trackerMetrics) record(r Report) {
	m.runs.WithLabelValues(string(r.Result)).Inc()
	if r.Result == Stale {
		return
	}
	m.duration.Observe(r.DurationMS / 1000)
	for _, a := range appliedActions {
		m.changes.WithLabelValues(string(a)).Add(float64(r.Counts[string(a)]))
	}
}

// handler serves the registry in the Prometheus text or OpenMetrics format. A
// metric that cannot be gathered leaves the others served.
func (m *trackerMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Registry: m.registry})
}

// trackerCollector reads the state metrics from the Tracker at each scrape.
type trackerCollector struct{ t *Tracker }

func (c trackerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{buildInfoDesc, readyDesc, lastResultDesc, lastTimeDesc, filesDesc, pendingDeletesDesc,
		sourceUpDesc, sourceInfoDesc, watchDirsDesc, pollingDesc, pollIntervalDesc, pollAskedDesc} {
		ch <- d
	}
}

func (c trackerCollector) Collect(ch chan<- prometheus.Metric) {
	t := c.t
	stale := t.checkRoot() // as /readyz does, so that the two agree
	t.mu.Lock()
	build, ready, watch := t.build, stale == nil && t.ready(), t.watch
	var last Report
	switch {
	case stale != nil:
		last = *stale
	case t.last != nil:
		last = *t.last
	}
	sources := slices.Clone(last.Sources)
	for name, why := range t.sources {
		sources = append(sources, SourceState{Name: name, Kind: "mcp", Up: why == ""})
	}
	t.mu.Unlock()

	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(buildInfoDesc, 1, build.Version, build.Commit, runtime.Version())
	gauge(readyDesc, boolValue(ready))
	for _, r := range allResults {
		gauge(lastResultDesc, boolValue(last.Result == r), string(r))
	}
	if !last.Time.IsZero() {
		gauge(lastTimeDesc, float64(last.Time.UnixMicro())/1e6)
		for _, s := range fileStates {
			n := 0
			for _, c := range s.counts {
				n += last.Counts[c]
			}
			gauge(filesDesc, float64(n), s.label)
		}
		gauge(pendingDeletesDesc, float64(last.Counts["deferred"]))
	}
	for _, s := range sources {
		if !s.Unread {
			gauge(sourceUpDesc, boolValue(s.Up), s.Name, s.Kind)
		}
		gauge(sourceInfoDesc, 1, s.Name, s.Kind, s.Digest)
	}
	if watch != nil {
		gauge(watchDirsDesc, float64(watch.Inotify), "inotify")
		gauge(watchDirsDesc, float64(watch.Polled), "polled")
		gauge(pollingDesc, boolValue(watch.Polled > 0))
		gauge(pollIntervalDesc, float64(watch.PollMS)/1000)
		gauge(pollAskedDesc, boolValue(watch.Asked))
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
