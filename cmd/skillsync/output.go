package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/go-logr/logr"
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
func printPlan(w io.Writer, out controller.Outcome, check, diff bool) {
	verbs := pastTense
	if check || out.Plan.Refused != "" {
		verbs = futureTense
	}
	failed := failures(out)
	var rows [][]string
	for _, c := range out.Plan.Changes {
		if c.Action == controller.None {
			continue
		}
		verb, note := verbs[c.Action], c.Reason
		if err, ok := failed[c.Path]; ok {
			verb, note = "failed", fmt.Sprintf("%s: %v", c.Action, err)
		}
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

func failures(out controller.Outcome) map[string]error {
	failed := map[string]error{}
	for _, a := range out.Applied {
		if a.Err != nil {
			failed[a.Path] = a.Err
		}
	}
	return failed
}

func summary(out controller.Outcome, check bool) string {
	p := out.Plan
	tail := fmt.Sprintf("%d in sync, %d withheld (profile %s)", p.Count(controller.None), len(out.Withheld), out.Profile.Label())
	if p.Pending() == 0 && p.Count(controller.Conflict) == 0 && p.Refused == "" {
		return "nothing to do: " + tail
	}
	lead, verbs := "done", pastTense
	switch {
	case p.Refused != "":
		lead, verbs = "refused, nothing changed", futureTense
	case check:
		lead, verbs = "to do", futureTense
	}
	failedBy := map[controller.Action]int{}
	for _, a := range out.Applied {
		if a.Err != nil {
			failedBy[a.Action]++
		}
	}
	counts := []string{}
	for _, a := range []controller.Action{controller.Create, controller.Update, controller.Delete, controller.Cleanup, controller.Conflict} {
		if n := p.Count(a) - failedBy[a]; n > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", verbs[a], n))
		}
	}
	if n := len(failures(out)); n > 0 {
		counts = append(counts, fmt.Sprintf("failed %d", n))
	}
	return fmt.Sprintf("%s: %s; %s", lead, strings.Join(counts, ", "), tail)
}

type changeReport struct {
	controller.Change
	Error string `json:"error,omitempty"`
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
	failed := failures(out)
	for _, c := range out.Plan.Changes {
		if c.Action == controller.None {
			continue
		}
		cr := changeReport{Change: c}
		if err := failed[c.Path]; err != nil {
			cr.Error = err.Error()
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

func logOutcome(log logr.Logger, out controller.Outcome) {
	for _, a := range out.Applied {
		if a.Err != nil {
			log.Error(a.Err, "change failed", "action", string(a.Action), "path", a.Path)
			continue
		}
		log.V(1).Info("change applied", "action", string(a.Action), "path", a.Path, "owner", a.Owner)
	}
	log.V(1).Info("reconcile finished", "profile", out.Profile.Name, "changes", out.Plan.Pending(),
		"conflicts", out.Plan.Count(controller.Conflict), "inSync", out.Plan.Count(controller.None), "problems", len(out.Problems))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
