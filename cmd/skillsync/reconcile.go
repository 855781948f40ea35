package main

import (
	"os"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired"
	"github.com/spf13/cobra"
)

func newReconcileCommand(g *globals) *cobra.Command {
	var (
		once, check, diff bool
		opts              controller.Options
		output            string
		watch             watchFlags
	)
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Converge the skill files with the registry",
		Long: "Compute the desired skill files, compare them with the target directories and write or\n" +
			"remove the files skillsync owns. --check only reports. Without --once or --check, keep\n" +
			"watching and reconciling until SIGTERM or SIGINT (see docs/operations.md).\n" +
			"Exit codes: 0 converged or in sync, 1 --check found changes, 2 invalid input,\n" +
			"3 conflicts remain, 4 any other failure (including the workspace lock being held).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return usageError("-o must be text or json, not %q", output)
			}
			root, err := g.root()
			if err != nil {
				return err
			}
			req := controller.Request{
				Root: root, ProfileFlag: g.profile, ProfileEnv: os.Getenv(desired.ProfileEnv),
				Check: check, Options: opts,
			}
			if !once && !check {
				return runWatch(g, req, watch)
			}
			out := controller.ReconcileOnce(req, watch.lockTimeout)
			logOutcome(g.logger(), out)
			code := outcomeCode(out, check)
			if output == "json" {
				return finish(code, writeJSON(g.stdout, reconcileReport(out, check, code)))
			}
			if len(out.Problems) > 0 {
				printProblems(g.stderr, out.Problems)
				return &exitError{code: code}
			}
			printPlan(g.stdout, out, check, diff)
			return &exitError{code: code, err: out.Failure()}
		},
	}
	f := cmd.Flags()
	f.BoolVar(&once, "once", false, "reconcile once and exit")
	f.BoolVar(&check, "check", false, "plan and report, write nothing; exit 1 when changes are needed")
	f.BoolVar(&diff, "diff", false, "show a unified diff of every change")
	f.BoolVar(&opts.Force, "force", false, "restore or remove generated files that were edited by hand (never files without a banner)")
	f.BoolVar(&opts.AllowEmpty, "allow-empty", false, "allow removing every generated file when nothing is desired")
	f.StringVarP(&output, "output", "o", "text", "output format: text or json")
	watch.register(f)
	return cmd
}

// exitCodes maps each verdict to the exit code of DESIGN §7.
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
