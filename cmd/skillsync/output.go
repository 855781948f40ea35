package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/watch"
	"github.com/skillsync/skillsync/internal/printable"
	yaml "go.yaml.in/yaml/v3"
)

var pastTense = map[plan.Action]string{
	plan.Create: "created", plan.Update: "updated", plan.Delete: "deleted",
	plan.Cleanup: "cleaned", plan.Conflict: "conflict",
}

var futureTense = map[plan.Action]string{
	plan.Create: "create", plan.Update: "update", plan.Delete: "delete",
	plan.Cleanup: "clean", plan.Conflict: "conflict",
}

// printPlan names every action with its path and owner, then one summary line.
// Each line says what became of its change: done, failed, or (for --check, a
// refused plan, or a change the run never got to) what it would do.
func printPlan(w io.Writer, out controller.Outcome, check, diff bool) {
	if !out.Planned {
		return // the failure, printed on stderr, says why there is no plan
	}
	// A row per change, made again for each of the table's two passes rather
	// than held: a cold run of a large registry has tens of thousands.
	rows := func(yield func([]string) bool) {
		for r := range out.Results(check) {
			if r.Fate == controller.InSync {
				continue
			}
			verb, note := fateWords(r)
			if !yield([]string{verb, r.Path, orDash(r.Owner), note}) {
				return
			}
		}
	}
	writeRows(w, rows)
	if diff {
		writeDiffs(w, out)
	}
	fmt.Fprintln(w, summaryLine(out, check))
}

// fateWords is the verb and note that say what became of a change.
func fateWords(r controller.Result) (verb, note string) {
	reason := withForce(r.Reason, r.Override)
	switch r.Fate {
	case controller.Proposed:
		return futureTense[r.Action], reason
	case controller.NotReached:
		return futureTense[r.Action], joinNotes(reason, r.NotDone)
	case controller.FailedApply:
		return "failed", fmt.Sprintf("%s: %v", r.Action, r.Err)
	case controller.LeftUndone:
		return "kept", joinNotes(reason, r.Kept)
	}
	return pastTense[r.Action], joinNotes(reason, r.Kept)
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

// writeTable aligns rows in columns two spaces apart, without trailing blanks;
// every row of a table has the same number of cells. A cold run's table has a
// line per file written, so it goes out in large writes and no copy of it is
// made (text/tabwriter holds every cell until it flushes).
func writeTable(w io.Writer, rows [][]string) { writeRows(w, slices.Values(rows)) }

// writeRows is writeTable of rows that are gone through twice: once to size
// the columns, once to write them. A cell that would not print as itself on
// one line (a path with a line break, which a repository can carry) is quoted
// (printable.Name): it would otherwise end its row and print the rest as rows,
// or workflow commands, of its own.
func writeRows(w io.Writer, rows iter.Seq[[]string]) {
	rows = oneLineCells(rows)
	var widths []int
	for r := range rows {
		for i, cell := range r[:max(len(r)-1, 0)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	out := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	for r := range rows {
		line = line[:0]
		for i, cell := range r {
			line = append(line, cell...)
			if i < len(r)-1 {
				for range widths[i] + 2 - utf8.RuneCountInString(cell) {
					line = append(line, ' ')
				}
			}
		}
		line = append(bytes.TrimRight(line, " "), '\n')
		out.Write(line)
	}
	out.Flush()
}

// oneLineCells is rows with each cell as printable.Name shows it.
func oneLineCells(rows iter.Seq[[]string]) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		for r := range rows {
			if !slices.ContainsFunc(r, func(cell string) bool { return !printable.OneLine(cell) }) {
				if !yield(r) {
					return
				}
				continue
			}
			shown := make([]string, len(r))
			for i, cell := range r {
				shown[i] = printable.Name(cell)
			}
			if !yield(shown) {
				return
			}
		}
	}
}

// summaryLine is the last line: what was done (or, for --check and a refused plan,
// what would be), what failed and what was not done, then the counts in sync.
func summaryLine(out controller.Outcome, check bool) string {
	p := out.Plan
	tail := fmt.Sprintf("%d in sync, %d withheld (profile %s)", p.Count(plan.None), len(out.Withheld), out.Profile.Label())
	if p.Pending() == 0 && p.Count(plan.Conflict) == 0 && p.Refused == "" {
		return "nothing to do: " + tail
	}
	actions := []plan.Action{plan.Create, plan.Update, plan.Delete, plan.Cleanup}
	var counts []string
	if check || p.Refused != "" {
		for _, a := range actions {
			if n := p.Count(a); n > 0 {
				counts = append(counts, fmt.Sprintf("%s %d", futureTense[a], n))
			}
		}
		if n := p.Count(plan.Conflict); n > 0 {
			counts = append(counts, fmt.Sprintf("conflict %d", n))
		}
		lead := "to do"
		if p.Refused != "" {
			lead = "refused, nothing changed"
		}
		return summarised(lead, counts, tail)
	}
	done, failed, kept, undone := map[plan.Action]int{}, 0, 0, map[plan.Action]int{}
	for r := range out.Results(check) {
		switch r.Fate {
		case controller.NotReached:
			undone[r.Action]++
		case controller.FailedApply:
			failed++
		case controller.LeftUndone:
			kept++
		case controller.Made:
			done[r.Action]++
		}
	}
	for _, a := range actions {
		if n := done[a]; n > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", pastTense[a], n))
		}
	}
	if n := p.Count(plan.Conflict); n > 0 {
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
	return summarised(lead, counts, tail)
}

// summarised is the summary line of lead and its counts, which a plan refused
// for what it met, not for what it would change, may lack.
func summarised(lead string, counts []string, tail string) string {
	if len(counts) == 0 {
		return lead + "; " + tail
	}
	return fmt.Sprintf("%s: %s; %s", lead, strings.Join(counts, ", "), tail)
}

type changeReport struct {
	Path        string `json:"path"`
	Action      string `json:"action"`
	Owner       string `json:"owner,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Obstruction bool   `json:"obstruction,omitempty"`
	// Done says the change was carried out; false for --check, a refused plan, a
	// failure and a change the run never got to, which NotDone explains.
	Done    bool   `json:"done"`
	Error   string `json:"error,omitempty"`
	Kept    string `json:"kept,omitempty"`
	NotDone string `json:"notDone,omitempty"`
	// Diff is the change as a unified diff, when one was asked for; DiffError
	// says why there is none.
	Diff      string `json:"diff,omitempty"`
	DiffError string `json:"diffError,omitempty"`
}

// reconcileJSON is what reconcile --once, --check, --dry-run and diff print.
type reconcileJSON struct {
	typeMeta
	Profile  string          `json:"profile"`
	Check    bool            `json:"check"`
	ExitCode int             `json:"exitCode"`
	Changes  []changeReport  `json:"changes"`
	InSync   int             `json:"inSync"`
	Refused  string          `json:"refused,omitempty"`
	Withheld []withheldJSON  `json:"withheld"`
	Problems []problemReport `json:"problems"`
	Error    string          `json:"error,omitempty"`
}

func reconcileReport(out controller.Outcome, check bool, code int, diffs bool) reconcileJSON {
	r := reconcileJSON{typeMeta: kindOf(kindReconcileResult), Profile: out.Profile.Name, Check: check, ExitCode: code, Changes: []changeReport{},
		InSync: out.Plan.Count(plan.None), Refused: refusal(out.Plan), Withheld: withheldJSONs(out.Withheld), Problems: problemReports(out.Problems)}
	for res := range out.Results(check) {
		if res.Fate == controller.InSync {
			continue
		}
		c := res.Change
		cr := changeReport{Path: c.Path, Action: string(c.Action), Owner: c.Owner, Reason: withForce(c.Reason, c.Override), Obstruction: c.Obstruction,
			Done: res.Fate == controller.Made, Kept: res.Kept, NotDone: res.NotDone}
		if res.Err != nil {
			cr.Error = res.Err.Error()
		}
		if diffs {
			d, err := changeDiff(out, *c)
			cr.Diff = d
			if err != nil {
				cr.DiffError = err.Error()
			}
		}
		r.Changes = append(r.Changes, cr)
	}
	if out.Err != nil {
		r.Error = flagWords(out.Err).Error()
	}
	return r
}

// documentFormat says whether -o asks for a document (json or yaml) rather than
// text or annotations.
func documentFormat(output string) bool { return output == "json" || output == "yaml" }

// writeDocument writes v as -o asks: indented JSON, or the same document as YAML
// with its keys in the JSON's order.
func writeDocument(w io.Writer, output string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if output == "yaml" {
		if data, err = jsonToYAML(data); err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// jsonToYAML re-encodes a JSON document as block YAML. JSON is YAML, so the
// decoder reads it into nodes that keep each object's key order; only the flow
// style and quotes JSON's syntax gave them are dropped, and the encoder quotes
// again any string that would otherwise read as another type.
func jsonToYAML(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	plain(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func plain(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && yaml11Bools[strings.ToLower(n.Value)] {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		plain(c)
	}
}

// yaml11Bools are the words a YAML 1.1 reader (PyYAML, yaml.v2) takes for a
// boolean: the encoder writes YAML 1.2, where they are strings, and would leave
// them bare.
var yaml11Bools = map[string]bool{"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true}

// logOutcome logs a --once run: failures at error, each change at debug (-v 1).
func logOutcome(log *slog.Logger, out controller.Outcome) {
	watch.LogApplied(log, out, slog.LevelDebug)
	log.Debug("reconcile finished", "profile", out.Profile.Name, "changes", out.Plan.Pending(),
		"conflicts", out.Plan.Count(plan.Conflict), "inSync", out.Plan.Count(plan.None), "problems", len(out.Problems))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
