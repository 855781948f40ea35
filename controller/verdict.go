package controller

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
)

// Verdict is the overall result of a pass, in order of precedence.
type Verdict int

const (
	Converged      Verdict = iota // in sync, or made so
	ChangesPending                // --check found changes to make
	Conflicted                    // conflicts remain; everything else was done
	Refused                       // the plan was refused as a whole; nothing was done
	Failed                        // an I/O or other failure
	Invalid                       // the inputs are invalid; nothing was planned
)

// Verdict classifies the outcome: invalid input first, then failures, then a refused
// plan, then conflicts, then changes a --check pass found.
func (o Outcome) Verdict(check bool) Verdict {
	switch {
	case len(o.Problems) > 0:
		return Invalid
	case o.Err != nil || o.obstructions() != nil:
		return Failed
	case o.Plan.Refused != "":
		return Refused
	case o.Plan.Count(plan.Conflict) > 0:
		return Conflicted
	case check && o.Plan.Drift() > 0:
		return ChangesPending
	}
	return Converged
}

// Failure says what keeps the outcome from being clean, and what to do about it.
func (o Outcome) Failure() error {
	switch {
	case o.Err != nil:
		return o.Err
	case o.obstructions() != nil:
		return o.obstructions()
	case o.Plan.Refused != "":
		return &RefusedError{Reason: o.Plan.Refused, Emptying: o.Plan.Emptying}
	case o.Plan.Count(plan.Conflict) > 0:
		return errors.New("conflicts remain: those files were kept as they are; see docs/ownership.md to restore or take them over")
	}
	return nil
}

// obstructions is the failure of paths skillsync cannot write because something that
// is no file at all is in the way.
func (o Outcome) obstructions() error {
	var lines []string
	for _, c := range o.Plan.Changes {
		if c.Action == plan.Conflict && c.Obstruction {
			lines = append(lines, "\n  "+c.Path+": "+c.Reason)
		}
	}
	if lines == nil {
		return nil
	}
	return fmt.Errorf("%d path(s) blocked by something that is not a file; move it away and run again:%s", len(lines), strings.Join(lines, ""))
}

// RefusedError is the failure of a pass whose plan was refused as a whole.
type RefusedError struct {
	Reason string
	// Emptying says the plan would have deleted every generated file while nothing
	// is desired, which Options.AllowEmpty allows.
	Emptying bool
}

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// UnsettledError is the failure of a single pass that left deletes undone because
// the inputs they follow from did not settle within its wait. Err is whatever else
// failed in the pass; its message comes first.
type UnsettledError struct {
	Deletes int
	Why     string        // what the deletes waited for
	Settle  time.Duration // how long the inputs must stay unchanged
	Err     error
}

func (e *UnsettledError) Error() string {
	msg := fmt.Sprintf("%d delete(s) not applied: %s; deletes wait until the inputs have been unchanged for %s; run again once they are saved",
		e.Deletes, e.Why, e.Settle)
	if e.Err != nil {
		// As errors.Join would put them: what else failed first, a line each.
		return e.Err.Error() + "\n" + msg
	}
	return msg
}

func (e *UnsettledError) Unwrap() error { return e.Err }
