package main

import (
	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
)

func newReconcileCommand(g *globals) *cobra.Command {
	var (
		once, watching, check, diff, dryRun bool
		opts                                plan.Options
		output                              string
		watch                               watchFlags
	)
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Converge the skill files with the registry, once or (--watch) as they change",
		Long: "Compute the desired skill files, compare them with the target directories and write or\n" +
			"remove the files skillsync owns, once. --check only reports; --dry-run shows what the run\n" +
			"would do, with a diff of each file, and writes nothing; --diff adds the diff to --check.\n" +
			"--watch keeps watching and reconciling until SIGTERM or SIGINT (see docs/operations.md);\n" +
			"the watcher's own flags (--poll, --health-addr, --debounce, --max-wait, --resync,\n" +
			"--follow-mcp) imply it, and the flags of one run are refused beside it.\n" +
			"Deletes wait until the inputs have been unchanged for --settle, so a file being saved never\n" +
			"prunes skills.\n" +
			"Exit codes: 0 converged or in sync, 1 --check found changes, 2 invalid input,\n" +
			"3 conflicts remain, 4 any other failure (including the workspace lock being held).",
		Example: "  skillsync reconcile                 converge now\n" +
			"  skillsync reconcile --dry-run       show what --once would do, with diffs; write nothing\n" +
			"  skillsync reconcile --check --diff  the same, exiting 1 if anything would change\n" +
			"  skillsync reconcile --watch         keep converging while you work\n" +
			"  skillsync reconcile --check -o github   in GitHub Actions: annotate each file out of step\n" +
			"  skillsync reconcile --check -o sarif > skillsync.sarif   the same for code scanning",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json", "yaml", "github", "sarif"); err != nil {
				return err
			}
			if diff && !check && !dryRun {
				return usageError("--diff shows changes without making them, so it goes with --check or --dry-run; " +
					"skillsync diff prints the diff alone")
			}
			writeNothing, diffs := check || dryRun, diff || dryRun
			watching, err := watch.check(cmd, watching)
			if err != nil {
				return err
			}
			root, err := g.root()
			if err != nil {
				return err
			}
			log := g.logger()
			req := g.request(g.sys, root, writeNothing)
			req.Options, req.Settle, req.Log = opts, watch.settle, log
			if writeNothing {
				req.System = g.readOnly()
			}
			if watching {
				return runWatch(g, req, watch)
			}
			out := controller.ReconcileOnce(req, watch.lockTimeout)
			logOutcome(log, out)
			code := outcomeCode(out, writeNothing)
			if code == exitChanges && !check {
				code = exitOK // a dry run exits as the run it shows would
			}
			if documentFormat(output) {
				return finish(code, writeDocument(g.stdout, output, reconcileReport(out, writeNothing, code, diffs)))
			}
			if output == "sarif" {
				return reconcileSARIF(g, root, out, writeNothing, code)
			}
			if output == "github" {
				annotate(g.stdout, out.Problems)
				annotatePlan(g.stdout, out, writeNothing)
			}
			if len(out.Problems) > 0 {
				printProblems(g.stderr, out.Problems)
				return &exitError{code: code}
			}
			printPlan(g.stdout, out, writeNothing, diffs)
			return &exitError{code: code, err: flagWords(out.Failure())}
		},
	}
	f := cmd.Flags()
	f.BoolVar(&once, "once", false, "reconcile once and exit: what reconcile does without --watch")
	f.BoolVar(&watching, "watch", false, "keep watching the workspace and reconciling as it changes, until SIGTERM or SIGINT")
	f.BoolVar(&check, "check", false, "plan and report, write nothing; exit 1 when changes are needed")
	f.BoolVar(&dryRun, "dry-run", false, "show what a run would do, with a unified diff of every change; write nothing")
	f.BoolVar(&diff, "diff", false, "with --check: add a unified diff of every change")
	f.BoolVar(&opts.Force, "force", false, "restore or remove generated files that were edited by hand, never files without a banner")
	f.BoolVar(&opts.AllowEmpty, "allow-empty", false, "allow removing every generated file when nothing is desired")
	f.StringVarP(&output, "output", "o", "text", "output format: text, json, yaml, github (text and workflow annotations) or sarif (SARIF 2.1.0, for code scanning)")
	watch.register(f)
	return cmd
}

// oneShotFlags are the flags that only make sense for one run, refused beside
// --watch.
var oneShotFlags = []string{"check", "dry-run", "diff", "force", "allow-empty", "output"}

// exitCodes maps each verdict to its exit code (README, "Commands").
var exitCodes = map[controller.Verdict]int{
	controller.Converged: exitOK, controller.ChangesPending: exitChanges, controller.Invalid: exitInvalid,
	controller.Conflicted: exitConflicts, controller.Refused: exitConflicts, controller.Failed: exitFailure,
}

func outcomeCode(out controller.Outcome, check bool) int { return exitCodes[out.Verdict(check)] }

func finish(code int, err error) error {
	if err != nil {
		return &exitError{exitFailure, err}
	}
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// reconcileSARIF writes the paths the run leaves as they should not be as a
// SARIF log, and exits as the run does. A run that did not plan writes no log:
// neither one that failed nor one whose input is invalid, whose log would hold
// no drift and so tell code scanning that every drift and conflict alert is
// fixed. validate -o sarif reports the input's problems, under a category of
// their own.
func reconcileSARIF(g *globals, root string, out controller.Outcome, check bool, code int) error {
	if len(out.Problems) > 0 {
		printProblems(g.stderr, out.Problems)
		return &exitError{code: code}
	}
	if !out.Planned {
		return &exitError{code: code, err: flagWords(out.Failure())}
	}
	if err := sarifLog(g.stdout, g.sys, root, planResults(out, check)); err != nil {
		return &exitError{exitFailure, err}
	}
	return &exitError{code: code, err: flagWords(out.Failure())}
}
