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

// Health tracks the watch loop for /healthz and /readyz.
type Health struct {
	mu    sync.Mutex
	alive bool
	last  *RunReport
}

// verdictNames are the results a report gives.
var verdictNames = map[Verdict]string{
	Converged: "converged", ChangesPending: "changesPending", Conflicted: "conflicts", Failed: "failed", Invalid: "invalid",
}

// Record stores the outcome of one run.
func (h *Health) Record(out Outcome, started time.Time, took time.Duration) RunReport {
	r := RunReport{Time: started.UTC(), DurationMS: float64(took.Microseconds()) / 1000, Result: verdictNames[out.Verdict(false)], Counts: map[string]int{}}
	for _, a := range []Action{Create, Update, Delete, Cleanup, Conflict, None} {
		r.Counts[string(a)] = out.Plan.Count(a)
	}
	if err := out.Failure(); err != nil {
		r.Error = err.Error()
	}
	if len(out.Problems) > 0 {
		r.Error = out.Problems.Error()
	}
	h.mu.Lock()
	h.last = &r
	h.mu.Unlock()
	return r
}

// SetAlive marks the loop as running or stopped.
func (h *Health) SetAlive(alive bool) {
	h.mu.Lock()
	h.alive = alive
	h.mu.Unlock()
}

// Ready reports what /readyz would answer.
func (h *Health) Ready() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ready()
}

// ready is true after a run that converged or kept conflicts as they are: the
// inputs were valid and every change was made.
func (h *Health) ready() bool {
	return h.last != nil && (h.last.Result == "converged" || h.last.Result == "conflicts")
}

// Handler serves /healthz (200 while the loop runs) and /readyz (200 after a
// successful reconcile, else 503), both with the last run as JSON.
func (h *Health) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.write(w, h.alive, "alive")
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
	json.NewEncoder(w).Encode(map[string]any{field: ok, "lastRun": h.last})
}
