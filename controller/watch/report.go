package watch

import (
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
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
