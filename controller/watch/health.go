package watch

// The health endpoints, /healthz and /readyz, know nothing of a reconcile: the
// loop hands them a Report of each run, already summarised (see runReport).

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Result is what a run came to, as the endpoints name it.
type Result string

const (
	Converged      Result = "converged"
	ChangesPending Result = "changesPending"
	Conflicts      Result = "conflicts"
	Refused        Result = "refused"
	Failed         Result = "failed"
	Invalid        Result = "invalid"
	// Settling is a run that put every wanted file in place while its deletes wait
	// for the inputs to settle.
	Settling Result = "settling"
	// Stale says the workspace root's path leads to another directory than the
	// one the last run read: the watcher is moving to it.
	Stale Result = "stale"
)

// Report is what the endpoints say about the last run.
type Report struct {
	Time       time.Time      `json:"time"`
	DurationMS float64        `json:"durationMs"`
	Result     Result         `json:"result"`
	Counts     map[string]int `json:"counts"`
	Error      string         `json:"error,omitempty"`
	// Tree is the directory the run worked on, every symlink resolved: where the
	// workspace root led when it started.
	Tree string `json:"tree,omitempty"`
	// Sources are the git, OCI and index sources the run read.
	Sources []SourceState `json:"sources,omitempty"`
}

// SourceState is one source as a run found it: its kind (git, oci, index, or mcp
// for a followed MCP server), what it is resolved to, and whether it answered.
type SourceState struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Digest string `json:"digest,omitempty"`
	Up     bool   `json:"up"`
	// Unread says the run stopped before it got to the source (at invalid input,
	// or at another source it could not read): whether it is up is not known.
	Unread bool `json:"unread,omitempty"`
}

// watchState is how the watcher sees changes: the directories inotify watches and
// those it polls instead, every PollMS milliseconds.
type watchState struct {
	Inotify int   `json:"inotify"`
	Polled  int   `json:"polled"`
	PollMS  int64 `json:"pollMs"`
	// Asked says --poll asked for polling: no fallback, nothing to alert on.
	Asked bool `json:"-"`
}

// Tracker keeps what /healthz and /readyz answer: whether the loop runs, the run in
// progress and the last one, and how changes are seen.
type Tracker struct {
	mu         sync.Mutex
	alive      bool
	running    time.Time // start of the run in progress; zero between runs
	last       *Report
	watch      *watchState
	stuckAfter time.Duration
	// sources are the MCP servers the watcher follows, with why each fails ("" for
	// one that answers).
	sources map[string]string
	// rootMoved looks whether the workspace root still leads to the tree of the
	// last run, and if not returns the stale report to answer with. /readyz and
	// /metrics ask it first: a run that converged the tree git-sync swapped away
	// a moment ago converged nothing anyone reads, even before the watcher has
	// seen the swap. It changes nothing: the watcher's own look at the root is
	// what moves it.
	rootMoved func() *Report
	// build names the binary for the metrics; metrics are made at the first
	// scrape or record.
	build       BuildInfo
	metricsOnce sync.Once
	metrics     *trackerMetrics
}

// checkRoot asks, for /readyz and /metrics, whether the root still leads to the
// tree of the last run: the stale report to answer with if not, else nil.
func (t *Tracker) checkRoot() *Report {
	t.mu.Lock()
	moved := t.rootMoved
	t.mu.Unlock()
	if moved == nil {
		return nil
	}
	return moved()
}

// followRoot makes /readyz and /metrics ask moved, before they answer, whether
// the root still leads to the tree of the last run.
func (t *Tracker) followRoot(moved func() *Report) {
	t.mu.Lock()
	t.rootMoved = moved
	t.mu.Unlock()
}

// SetSource records whether the MCP server name answers (err nil) or why not. A
// server that does not answer makes /readyz 503, naming it: its tools are
// unavailable input, and the last snapshot of them stays in force.
func (t *Tracker) SetSource(name string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sources == nil {
		t.sources = map[string]string{}
	}
	t.sources[name] = ""
	if err != nil {
		t.sources[name] = err.Error()
	}
}

// ForgetSources forgets every MCP server SetSource was told of: the watcher
// follows another set.
func (t *Tracker) ForgetSources() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sources = nil
}

// StuckAfter is how long a run may take before /healthz reports the loop as stuck
// (a hung network mount, say), so a liveness probe restarts it.
const StuckAfter = 10 * time.Minute

// setWatch records how the watcher now sees changes.
func (t *Tracker) setWatch(w watchState) {
	t.mu.Lock()
	t.watch = &w
	t.mu.Unlock()
}

// runStarted marks the start of a run.
func (t *Tracker) runStarted(at time.Time) {
	t.mu.Lock()
	t.running = at
	t.mu.Unlock()
}

// Record stores the report of the run that just ended.
func (t *Tracker) Record(r Report) {
	t.mu.Lock()
	t.last, t.running = &r, time.Time{}
	t.mu.Unlock()
	t.metricsOf().record(r)
}

// setAlive marks the loop as running or stopped.
func (t *Tracker) setAlive(alive bool) {
	t.mu.Lock()
	t.alive = alive
	t.mu.Unlock()
}

func (t *Tracker) stuckLimit() time.Duration {
	if t.stuckAfter > 0 {
		return t.stuckAfter
	}
	return StuckAfter
}

// Ready reports what /readyz would answer.
func (t *Tracker) Ready() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ready()
}

// ready is true after a run that converged or kept conflicts as they are: the
// inputs were valid and every change was made, but for deletes that wait for the
// inputs to settle (every wanted file is in place).
func (t *Tracker) ready() bool {
	return t.last != nil && (t.last.Result == Converged || t.last.Result == Conflicts || t.last.Result == Settling) && len(t.failingSources()) == 0
}

// failingSources are the followed MCP servers that do not answer, with why;
// t.mu is held.
func (t *Tracker) failingSources() map[string]string {
	failing := map[string]string{}
	for name, why := range t.sources {
		if why != "" {
			failing[name] = why
		}
	}
	return failing
}

// Handler serves /healthz (200 while the loop runs) and /readyz (200 after a
// successful run, else 503), both with the last run as JSON, and /metrics, the
// same state for Prometheus (see metrics.go).
func (t *Tracker) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		t.mu.Lock()
		stuck := !t.running.IsZero() && time.Since(t.running) > t.stuckLimit()
		ok, body := t.answer(t.alive && !stuck, "alive", t.last)
		t.mu.Unlock()
		write(w, ok, body)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		stale := t.checkRoot()
		t.mu.Lock()
		ok, body := t.answer(t.ready(), "ready", t.last)
		if stale != nil {
			ok, body = t.answer(false, "ready", stale)
		}
		t.mu.Unlock()
		write(w, ok, body)
	})
	mux.Handle("GET /metrics", t.metricsOf().handler())
	return mux
}

// answer is ok (the field named field) with last, the report of the run the
// answer stands on, as JSON; t.mu is held. It is written once the lock is let
// go: a client that reads slowly must not hold up the runs that take it.
func (t *Tracker) answer(ok bool, field string, last *Report) (bool, []byte) {
	body := map[string]any{field: ok, "lastRun": last, "watch": t.watch}
	if failing := t.failingSources(); len(failing) > 0 {
		body["mcpSources"] = failing
	}
	data, _ := json.Marshal(body)
	return ok, append(data, '\n')
}

// write sends an answer: 200 when ok, else 503.
func write(w http.ResponseWriter, ok bool, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	w.Write(body)
}
