package main

import (
	"fmt"

	"github.com/skillsync/skillsync/authoring/snapshot"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
)

// The library says what happened, and what would change it in its own terms
// (Options.Force, Options.AllowEmpty, Request.Settle); the command line names the
// flag that does it. The words are those the docs quote.

var overrideWords = map[plan.Override]string{
	plan.ForceRestores: " (--force restores it)",
	plan.ForceDeletes:  " (--force deletes it)",
	plan.ForceRestored: " by --force",
}

// withForce is a change's reason, with the --force that would override it, or did.
func withForce(reason string, o plan.Override) string {
	return reason + overrideWords[o]
}

const allowEmptyWords = "; if the registry really is empty on purpose, run again with --allow-empty"

// refusal is why a plan was refused, with the --allow-empty that lets a plan
// run that empties the workspace on purpose.
func refusal(p plan.Plan) string {
	if p.Emptying {
		return p.Refused + allowEmptyWords
	}
	return p.Refused
}

// flagWords is a pass's failure with the flag that changes it named; any other
// error is as the library says it.
func flagWords(err error) error {
	switch e := err.(type) {
	case *controller.RefusedError:
		if e.Emptying {
			return worded{e, e.Error() + allowEmptyWords}
		}
	case *snapshot.EditedError:
		return worded{e, e.Path + " was edited by hand; kept (--force replaces it; declare an override in another registry file instead)"}
	case *controller.UnsettledError:
		msg := fmt.Sprintf("%d delete(s) not applied: %s; deletes wait until the inputs have been unchanged for %s (--settle); run again once they are saved",
			e.Deletes, e.Why, e.Settle)
		if e.Err != nil {
			msg = e.Err.Error() + "\n" + msg
		}
		return worded{e, msg}
	}
	return err
}

// worded is a library error with the message the command line gives it.
type worded struct {
	err error
	msg string
}

func (w worded) Error() string { return w.msg }
func (w worded) Unwrap() error { return w.err }
