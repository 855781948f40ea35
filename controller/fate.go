package controller

import (
	"iter"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
)

// Fate is what became of one change of a plan by the end of its pass.
type Fate int

const (
	InSync      Fate = iota // nothing to do
	Proposed                // not to be made: a --check pass, a refused plan, a conflict
	NotReached              // to be made, but the pass did not get to it
	FailedApply             // attempted and failed
	LeftUndone              // housekeeping the permissions left undone
	Made                    // carried out
)

// Result is one change of a plan with what became of it. Applied is the record of
// the attempt (zero unless attempted); NotDone says why a NotReached change was not made.
type Result struct {
	apply.Applied
	Fate    Fate
	NotDone string
}

// Results gives each change of the plan, in order, with its fate; check says
// the pass was --check. They are made as they are asked for: a cold run at
// N = 10 000 has some 36 000 changes, and every output goes through them.
func (o Outcome) Results(check bool) iter.Seq[Result] {
	return func(yield func(Result) bool) {
		attempts := make(map[string]int32, len(o.Applied))
		for i, a := range o.Applied {
			attempts[a.Path] = int32(i)
		}
		for i := range o.Plan.Changes {
			c := &o.Plan.Changes[i]
			attempt, attempted := attempts[c.Path]
			r := Result{Applied: apply.Applied{Change: c}}
			switch {
			case c.Action == plan.None:
				r.Fate = InSync
			case check || o.Plan.Refused != "" || c.Action == plan.Conflict:
				r.Fate = Proposed
			case !attempted:
				r.Fate, r.NotDone = NotReached, o.notDone(c)
			default:
				r.Applied, r.Change = o.Applied[attempt], c
				r.Fate = Made
				if r.Err != nil {
					r.Fate = FailedApply
				} else if r.Undone {
					r.Fate = LeftUndone
				}
			}
			if !yield(r) {
				return
			}
		}
	}
}

// notDone says why c, planned for this pass, was not made.
func (o Outcome) notDone(c *plan.Change) string {
	if c.Action == plan.Delete && len(o.Deferred) > 0 {
		return "not done: waits for the inputs to settle (" + o.SettleWhy + ")"
	}
	if len(o.Deferred) > 0 && (c.Supporting || clients.IsSkillFile(c.Path)) {
		return "not done: waits for the deletes in its skill directory, which wait for the inputs to settle (" + o.SettleWhy + ")"
	}
	return "not done"
}
