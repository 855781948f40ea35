package main

import (
	"os"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired"
	"github.com/spf13/cobra"
)

func newReconcileCommand(g *globals) *cobra.Command {
	var (
		once, check, diff, dryRun bool
		opts                      plan.Options
		output                    string
		watch                     watchFlags
	)
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Converge the skill files with the registry",
		Long: "Compute the desired skill files, compare them with the target directories and write or\n" +
			"remove the files skillsync owns. --check only reports. Without --once, keep watching and\n" +
			"reconciling until SIGTERM or SIGINT (see docs/operations.md); --check, --dry-run, --diff,\n" +
			"--force, --allow-empty and -o are for one run and imply --once. --dry-run shows what a run\n" +
			"would do, with a diff of each file, and writes nothing; --diff adds the diff to --check.\n" +
			"Deletes wait until the inputs have been unchanged for --settle, so a file being saved never\n" +
			"prunes skills.\n" +
			"Exit codes: 0 converged or in sync, 1 --check found changes, 2 invalid input,\n" +
			"3 conflicts remain, 4 any other failure (including the workspace lock being held).",
		Example: "  skillsync reconcile --once          converge now\n" +
			"  skillsync reconcile --dry-run       show what --once would do, with diffs; write nothing\n" +
			"  skillsync reconcile --check --diff  the same, exiting 1 if anything would change\n" +
			"  skillsync reconcile                 keep converging while you work\n" +
			"  skillsync reconcile --check -o github   in GitHub Actions: annotate each file out of step",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json", "yaml", "github"); err != nil {
				return err
			}
			if diff && !check && !dryRun {
				return usageError("--diff shows changes without making them, so it goes with --check or --dry-run; " +
					"skillsync diff prints the diff alone")
			}
			writeNothing, diffs := check || dryRun, diff || dryRun
			oneShot := once || oneShotFlag(cmd) != ""
			if err := watch.check(cmd, oneShot); err != nil {
				return err
			}
			root, err := g.root()
			if err != nil {
				return err
			}
			log := g.logger()
			req := controller.Request{
				System: g.sys, Root: root, ProfileFlag: g.profile, ProfileEnv: os.Getenv(desired.ProfileEnv),
				Check: writeNothing, Options: opts, Settle: watch.settle, Log: log,
			}
			if writeNothing {
				req.System = g.readOnly()
			}
			if !oneShot {
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
	f.BoolVar(&once, "once", false, "reconcile once and exit")
	f.BoolVar(&check, "check", false, "plan and report, write nothing; exit 1 when changes are needed (implies --once)")
	f.BoolVar(&dryRun, "dry-run", false, "show what a run would do, with a unified diff of every change; write nothing (implies --once)")
	f.BoolVar(&diff, "diff", false, "with --check: add a unified diff of every change")
	f.BoolVar(&opts.Force, "force", false, "restore or remove generated files that were edited by hand, never files without a banner (implies --once)")
	f.BoolVar(&opts.AllowEmpty, "allow-empty", false, "allow removing every generated file when nothing is desired (implies --once)")
	f.StringVarP(&output, "output", "o", "text", "output format: text, json, yaml, or github (text and workflow annotations) (implies --once)")
	watch.register(f)
	return cmd
}

// oneShotFlags are the flags that only make sense for one run: each implies --once.
var oneShotFlags = []string{"check", "dry-run", "diff", "force", "allow-empty", "output"}

// oneShotFlag names the first one-shot flag given, or "".
func oneShotFlag(cmd *cobra.Command) string {
	for _, name := range oneShotFlags {
		if cmd.Flags().Changed(name) {
			return name
		}
	}
	return ""
}

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
