package controller

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// RunReport is what the health endpoints say about the last reconcile.
type RunReport struct {
	Time       time.Time      `json:"time"`
	DurationMS float64        `json:"durationMs"`
	Result     string         `json:"result"`
	Counts     map[string]int `json:"counts"`
	Error      string         `json:"error,omitempty"`
}

// WatchState is how the watcher sees changes: the directories inotify watches and
// those it polls instead, every PollMS milliseconds.
type WatchState struct {
	Inotify int   `json:"inotify"`
	Polled  int   `json:"polled"`
	PollMS  int64 `json:"pollMs"`
}

// Health tracks the watch loop for /healthz and /readyz.
type Health struct {
	mu         sync.Mutex
	alive      bool
	running    time.Time // start of the run in progress; zero between runs
	last       *RunReport
	watch      *WatchState
	stuckAfter time.Duration
}

// SetWatch records how the watcher now sees changes.
func (h *Health) SetWatch(w WatchState) {
	h.mu.Lock()
	h.watch = &w
	h.mu.Unlock()
}

// StuckAfter is how long a run may take before /healthz reports the loop as stuck
// (a hung network mount, say), so a liveness probe restarts it.
const StuckAfter = 10 * time.Minute

// RunStarted marks the start of a run.
func (h *Health) RunStarted(at time.Time) {
	h.mu.Lock()
	h.running = at
	h.mu.Unlock()
}

// verdictNames are the results a report gives.
var verdictNames = map[Verdict]string{
	Converged: "converged", ChangesPending: "changesPending", Conflicted: "conflicts", Refused: "refused", Failed: "failed", Invalid: "invalid",
}

// Record stores the outcome of one run.
func (h *Health) Record(out Outcome, started time.Time, took time.Duration) RunReport {
	r := RunReport{Time: started.UTC(), DurationMS: float64(took.Microseconds()) / 1000, Result: verdictNames[out.Verdict(false)],
		Counts: map[string]int{string(Create): 0, string(Update): 0, string(Delete): 0, string(Cleanup): 0}}
	// What was done, not what was planned: a refused or failed change counts nowhere.
	for _, a := range out.Applied {
		if a.Done() {
			r.Counts[string(a.Action)]++
		}
	}
	r.Counts[string(Conflict)] = out.Plan.Count(Conflict)
	r.Counts[string(None)] = out.Plan.Count(None)
	r.Counts["deferred"] = len(out.Deferred)
	if err := out.Failure(); err != nil {
		r.Error = err.Error()
	}
	if len(out.Deferred) > 0 && (r.Result == "converged" || r.Result == "conflicts") {
		r.Result = "settling"
	}
	if len(out.Problems) > 0 {
		r.Error = out.Problems.Error()
	}
	h.mu.Lock()
	h.last, h.running = &r, time.Time{}
	h.mu.Unlock()
	return r
}

// SetAlive marks the loop as running or stopped.
func (h *Health) SetAlive(alive bool) {
	h.mu.Lock()
	h.alive = alive
	h.mu.Unlock()
}

func (h *Health) stuckLimit() time.Duration {
	if h.stuckAfter > 0 {
		return h.stuckAfter
	}
	return StuckAfter
}

// Ready reports what /readyz would answer.
func (h *Health) Ready() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ready()
}

// ready is true after a run that converged or kept conflicts as they are: the
// inputs were valid and every change was made, but for deletes that wait for the
// inputs to settle ("settling": every wanted file is in place).
func (h *Health) ready() bool {
	return h.last != nil && (h.last.Result == "converged" || h.last.Result == "conflicts" || h.last.Result == "settling")
}

// Handler serves /healthz (200 while the loop runs) and /readyz (200 after a
// successful reconcile, else 503), both with the last run as JSON.
func (h *Health) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		stuck := !h.running.IsZero() && time.Since(h.running) > h.stuckLimit()
		h.write(w, h.alive && !stuck, "alive")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.write(w, h.ready(), "ready")
	})
	return mux
}

func (h *Health) write(w http.ResponseWriter, ok bool, field string) {
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	json.NewEncoder(w).Encode(map[string]any{field: ok, "lastRun": h.last, "watch": h.watch})
}
