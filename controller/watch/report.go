package watch

import (
	"errors"
	"slices"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired/registry"
)

// results are the names the health endpoints give each verdict.
var results = map[controller.Verdict]Result{
	controller.Converged: Converged, controller.ChangesPending: ChangesPending, controller.Conflicted: Conflicts,
	controller.Refused: Refused, controller.Failed: Failed, controller.Invalid: Invalid,
}

// runReport summarises a run for the health endpoints and the log.
func runReport(out controller.Outcome, started time.Time, took time.Duration) Report {
	r := Report{Time: started.UTC(), DurationMS: float64(took.Microseconds()) / 1000, Result: results[out.Verdict(false)],
		Counts: map[string]int{string(plan.Create): 0, string(plan.Update): 0, string(plan.Delete): 0, string(plan.Cleanup): 0}}
	// What was done, not what was planned: a refused or failed change counts nowhere.
	for _, a := range out.Applied {
		if a.Done() {
			r.Counts[string(a.Action)]++
		}
	}
	r.Counts[string(plan.Conflict)] = out.Plan.Count(plan.Conflict)
	r.Counts[string(plan.None)] = out.Plan.Count(plan.None)
	r.Counts["deferred"] = len(out.Deferred)
	r.Counts["withheld"] = len(out.Withheld)
	r.Counts["handWritten"] = len(out.HandWritten)
	r.Sources = sourceStates(out)
	if err := out.Failure(); err != nil {
		r.Error = err.Error()
	}
	if len(out.Deferred) > 0 && (r.Result == Converged || r.Result == Conflicts) {
		r.Result = Settling
	}
	if len(out.Problems) > 0 {
		r.Error = out.Problems.Error()
	}
	return r
}

// sourceStates are the sources skillsync.yaml declares, as the run read them:
// what the lock pins each to, and whether it could be read. A run that planned
// read every source; one that stopped at a source it could not read names that
// one, and of the others, as of every source of a run that stopped at invalid
// input, nothing is known.
func sourceStates(out controller.Outcome) []SourceState {
	if out.Registry == nil {
		return nil
	}
	var unread *registry.SourceError
	errors.As(out.Err, &unread)
	var states []SourceState
	for _, src := range out.Registry.Config.Spec.Sources {
		if slices.ContainsFunc(states, func(s SourceState) bool { return s.Name == src.Name }) {
			continue // a name declared twice is invalid input, reported as such
		}
		s := SourceState{Name: src.Name, Kind: sourceKind(src), Up: out.Planned}
		s.Unread = !out.Planned && (unread == nil || unread.Source != src.Name)
		if locked, ok := out.Registry.Pinned[src.Name]; ok {
			s.Digest = locked.Pin()
		}
		states = append(states, s)
	}
	return states
}

// sourceKind names what a declared source is read from.
func sourceKind(src registry.RemoteSource) string {
	switch {
	case src.OCI != "":
		return "oci"
	case src.Index != "":
		return "index"
	}
	return "git"
}
