package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/textdiff"
)

var pastTense = map[controller.Action]string{
	controller.Create: "created", controller.Update: "updated", controller.Delete: "deleted",
	controller.Cleanup: "cleaned", controller.Conflict: "conflict",
}

var futureTense = map[controller.Action]string{
	controller.Create: "create", controller.Update: "update", controller.Delete: "delete",
	controller.Cleanup: "clean", controller.Conflict: "conflict",
}

// printPlan names every action with its path and owner, then one summary line.
// Each line says what became of its change: done, failed, or (for --check, a
// refused plan, or a change the run never got to) what it would do.
func printPlan(w io.Writer, out controller.Outcome, check, diff bool) {
	if !out.Planned {
		return // the failure, printed on stderr, says why there is no plan
	}
	applied := appliedByPath(out)
	var rows [][]string
	for _, c := range out.Plan.Changes {
		if c.Action == controller.None {
			continue
		}
		verb, note := fate(c, applied, check || out.Plan.Refused != "", notDone(out, c))
		rows = append(rows, []string{verb, c.Path, orDash(c.Owner), note})
	}
	writeTable(w, rows)
	if diff {
		for _, c := range out.Plan.Changes {
			switch c.Action {
			case controller.Create, controller.Update, controller.Delete:
				old, new, err := c.Contents(out.Registry.Root)
				if err != nil {
					fmt.Fprintf(w, "%s: no diff: %v\n", c.Path, err)
					continue
				}
				fmt.Fprint(w, textdiff.Unified(c.Path, old, new))
			}
		}
	}
	fmt.Fprintln(w, summary(out, check))
}

// fate is the verb and note of change c: reportOnly says no change was to be
// carried out (--check, a refused plan); why says why one that was to be was not.
func fate(c controller.Change, applied map[string]controller.Applied, reportOnly bool, why string) (verb, note string) {
	a, attempted := applied[c.Path]
	switch {
	case c.Action == controller.Conflict:
		return "conflict", c.Reason
	case reportOnly:
		return futureTense[c.Action], c.Reason
	case !attempted:
		return futureTense[c.Action], joinNotes(c.Reason, why)
	case a.Err != nil:
		return "failed", fmt.Sprintf("%s: %v", c.Action, a.Err)
	case !a.Done():
		return "kept", joinNotes(c.Reason, a.Kept)
	}
	return pastTense[c.Action], joinNotes(c.Reason, a.Kept)
}

// notDone says why c, planned for this run, was not carried out.
func notDone(out controller.Outcome, c controller.Change) string {
	if c.Action == controller.Delete && len(out.Deferred) > 0 {
		return "not done: waits for the inputs to settle (" + out.SettleWhy + ")"
	}
	return "not done"
}

func joinNotes(notes ...string) string {
	var kept []string
	for _, n := range notes {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return strings.Join(kept, "; ")
}

// writeTable aligns rows in columns, without trailing blanks.
func writeTable(w io.Writer, rows [][]string) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line != "" {
			fmt.Fprintln(w, strings.TrimRight(line, " \n"))
		}
	}
}

func appliedByPath(out controller.Outcome) map[string]controller.Applied {
	applied := make(map[string]controller.Applied, len(out.Applied))
	for _, a := range out.Applied {
		applied[a.Path] = a
	}
	return applied
}

// summary is the last line: what was done (or, for --check and a refused plan,
// what would be), what failed and what was not done, then the counts in sync.
func summary(out controller.Outcome, check bool) string {
	p := out.Plan
	tail := fmt.Sprintf("%d in sync, %d withheld (profile %s)", p.Count(controller.None), len(out.Withheld), out.Profile.Label())
	if p.Pending() == 0 && p.Count(controller.Conflict) == 0 && p.Refused == "" {
		return "nothing to do: " + tail
	}
	actions := []controller.Action{controller.Create, controller.Update, controller.Delete, controller.Cleanup}
	var counts []string
	if check || p.Refused != "" {
		for _, a := range actions {
			if n := p.Count(a); n > 0 {
				counts = append(counts, fmt.Sprintf("%s %d", futureTense[a], n))
			}
		}
		if n := p.Count(controller.Conflict); n > 0 {
			counts = append(counts, fmt.Sprintf("conflict %d", n))
		}
		lead := "to do"
		if p.Refused != "" {
			lead = "refused, nothing changed"
		}
		return fmt.Sprintf("%s: %s; %s", lead, strings.Join(counts, ", "), tail)
	}
	applied := appliedByPath(out)
	done, failed, kept, undone := map[controller.Action]int{}, 0, 0, map[controller.Action]int{}
	for _, c := range p.Changes {
		a, attempted := applied[c.Path]
		switch {
		case c.Action == controller.None || c.Action == controller.Conflict:
		case !attempted:
			undone[c.Action]++
		case a.Err != nil:
			failed++
		case !a.Done():
			kept++
		default:
			done[c.Action]++
		}
	}
	for _, a := range actions {
		if n := done[a]; n > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", pastTense[a], n))
		}
	}
	if n := p.Count(controller.Conflict); n > 0 {
		counts = append(counts, fmt.Sprintf("conflict %d", n))
	}
	if failed > 0 {
		counts = append(counts, fmt.Sprintf("failed %d", failed))
	}
	if kept > 0 {
		counts = append(counts, fmt.Sprintf("kept %d", kept))
	}
	for _, a := range actions {
		if n := undone[a]; n > 0 {
			counts = append(counts, fmt.Sprintf("not done: %s %d", futureTense[a], n))
		}
	}
	lead := "done"
	if len(done) == 0 {
		lead = "nothing changed"
	}
	return fmt.Sprintf("%s: %s; %s", lead, strings.Join(counts, ", "), tail)
}

type changeReport struct {
	controller.Change
	// Done says the change was carried out; false for --check, a refused plan, a
	// failure and a change the run never got to, which NotDone explains.
	Done    bool   `json:"done"`
	Error   string `json:"error,omitempty"`
	Kept    string `json:"kept,omitempty"`
	NotDone string `json:"notDone,omitempty"`
}

type reconcileJSON struct {
	Profile  string             `json:"profile"`
	Check    bool               `json:"check"`
	ExitCode int                `json:"exitCode"`
	Changes  []changeReport     `json:"changes"`
	InSync   int                `json:"inSync"`
	Refused  string             `json:"refused,omitempty"`
	Withheld []desired.Withheld `json:"withheld"`
	Problems []string           `json:"problems"`
	Error    string             `json:"error,omitempty"`
}

func reconcileReport(out controller.Outcome, check bool, code int) reconcileJSON {
	r := reconcileJSON{Profile: out.Profile.Name, Check: check, ExitCode: code, Changes: []changeReport{},
		InSync: out.Plan.Count(controller.None), Refused: out.Plan.Refused, Withheld: out.Withheld, Problems: []string{}}
	if r.Withheld == nil {
		r.Withheld = []desired.Withheld{}
	}
	applied := appliedByPath(out)
	for _, c := range out.Plan.Changes {
		if c.Action == controller.None {
			continue
		}
		cr := changeReport{Change: c}
		a, attempted := applied[c.Path]
		switch {
		case check || out.Plan.Refused != "" || c.Action == controller.Conflict:
		case attempted:
			cr.Done, cr.Kept = a.Done(), a.Kept
			if a.Err != nil {
				cr.Error = a.Err.Error()
			}
		default:
			cr.NotDone = notDone(out, c)
		}
		r.Changes = append(r.Changes, cr)
	}
	for _, p := range out.Problems {
		r.Problems = append(r.Problems, p.String())
	}
	if out.Err != nil {
		r.Error = out.Err.Error()
	}
	return r
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// logOutcome logs a --once run: failures at error, each change at debug (-v 1).
func logOutcome(log *slog.Logger, out controller.Outcome) {
	for _, a := range out.Applied {
		switch {
		case a.Err != nil:
			log.Error("change failed", "action", string(a.Action), "path", a.Path, "err", a.Err)
		case !a.Done():
			log.Debug("housekeeping left undone", "action", string(a.Action), "path", a.Path, "kept", a.Kept)
		default:
			log.Debug("change applied", "action", string(a.Action), "path", a.Path, "owner", a.Owner)
		}
	}
	log.Debug("reconcile finished", "profile", out.Profile.Name, "changes", out.Plan.Pending(),
		"conflicts", out.Plan.Count(controller.Conflict), "inSync", out.Plan.Count(controller.None), "problems", len(out.Problems))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
