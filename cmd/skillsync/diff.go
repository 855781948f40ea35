package main

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/spf13/cobra"
)

func newDiffCommand(g *globals) *cobra.Command {
	var (
		exitCode bool
		output   string
	)
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show what reconcile would change, as a unified diff; write nothing",
		Long: "Print a unified diff of every file reconcile would create, update or delete, whole\n" +
			"files as they are on disk, banners included, and write nothing, as git diff and\n" +
			"kubectl diff do. Conflicts are not diffs: they are named on stderr.\n" +
			"Exit codes: 0 (with --exit-code: 0 no differences, 1 differences), 2 invalid input,\n" +
			"3 conflicts or a refused plan, 4 any other failure.",
		Example: "  skillsync diff               what reconcile --once would change\n" +
			"  skillsync diff --exit-code   also exit 1 when there is anything to change\n" +
			"  skillsync diff -o json       the changes with a diff each",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json", "yaml"); err != nil {
				return err
			}
			root, err := g.root()
			if err != nil {
				return err
			}
			req := g.request(g.readOnly(), root, true)
			req.Log = g.logger()
			out := controller.ReconcileOnce(req, 0)
			code := diffCode(out, exitCode)
			if documentFormat(output) {
				return finish(code, writeDocument(g.stdout, output, reconcileReport(out, true, code, true)))
			}
			if len(out.Problems) > 0 {
				printProblems(g.stderr, out.Problems)
				return &exitError{code: code}
			}
			if out.Planned {
				writeDiffs(g.stdout, out)
				writeConflicts(g.stderr, out)
			}
			return &exitError{code: code, err: flagWords(out.Failure())}
		},
	}
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when there are differences, as git diff --exit-code")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text (the diff), json or yaml")
	return cmd
}

// diffCode is the exit code of skillsync diff: a reconcile --check's, except
// that changes to make are no failure unless --exit-code asks for 1.
func diffCode(out controller.Outcome, exitCode bool) int {
	code := outcomeCode(out, true)
	if code == exitChanges && !exitCode {
		return exitOK
	}
	return code
}

// writeDiffs writes the unified diff of every create, update and delete of the
// plan, in the plan's order; a file it cannot read gets a line saying so.
func writeDiffs(w io.Writer, out controller.Outcome) {
	for _, c := range out.Plan.Changes {
		d, err := changeDiff(out, c)
		if err != nil {
			fmt.Fprintf(w, "%s: no diff: %v\n", c.Path, err)
			continue
		}
		fmt.Fprint(w, d)
	}
}

// changeDiff is the unified diff of one change: empty unless it creates,
// updates or deletes a file.
func changeDiff(out controller.Outcome, c plan.Change) (string, error) {
	switch c.Action {
	case plan.Create, plan.Update, plan.Delete:
	default:
		return "", nil
	}
	old, new, err := contents(out.Registry.System(), out.Registry.Root, c)
	if err != nil {
		return "", err
	}
	if binary(old) || binary(new) {
		return fmt.Sprintf("Binary files %s and %s differ\n", diffLabel("a/", c.Path, old), diffLabel("b/", c.Path, new)), nil
	}
	d := unifiedDiff(c.Path, old, new)
	if d == "" && c.Action == plan.Update && c.Supporting {
		// Only its execute bit changes, as git shows a mode change.
		modes := [2]string{"100755", "100644"}
		if c.Executable {
			modes = [2]string{"100644", "100755"}
		}
		d = fmt.Sprintf("diff --git a/%s b/%s\nold mode %s\nnew mode %s\n", c.Path, c.Path, modes[0], modes[1])
	}
	return d, nil
}

// binary says data is no text a line diff can show: it holds a NUL byte, as git
// decides, or is not UTF-8.
func binary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// diffLabel names one side of a diff: /dev/null where there is no file.
func diffLabel(side, path string, data []byte) string {
	if data == nil {
		return "/dev/null"
	}
	return side + path
}

// writeConflicts names, one a line, each file the plan leaves alone because it
// is in the way: a diff has no lines for them.
func writeConflicts(w io.Writer, out controller.Outcome) {
	for _, c := range out.Plan.Changes {
		if c.Action == plan.Conflict {
			fmt.Fprintf(w, "conflict %s: %s\n", c.Path, c.Reason)
		}
	}
}

// unifiedDiff is the diff of one file: unified, labelled a/ and b/ as git labels
// them, with /dev/null for a side that does not exist (nil), and empty when the
// texts are equal. go-udiff is gopls' diff: linear in the size of the files for
// the few changed lines a regenerated skill has (docs/decisions.md).
func unifiedDiff(path string, old, new []byte) string {
	return udiff.Unified(diffLabel("a/", path, old), diffLabel("b/", path, new), string(old), string(new))
}
