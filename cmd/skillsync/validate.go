package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/sarif"
	"github.com/spf13/cobra"
)

func newValidateCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Load and validate the workspace; print every problem",
		Example: "  skillsync validate                 check the workspace around the current directory\n" +
			"  skillsync validate --profile web   check it under another profile\n" +
			"  skillsync validate -o github       annotate each problem's line in a GitHub Actions run\n" +
			"  skillsync validate -o sarif        every problem, warning and note as SARIF, for code scanning",
		Long: "Load skillsync.yaml and every registry file, check them and print every problem with\n" +
			"its file:line, including a skill name that a hand-written skill in one of its target\n" +
			"directories already holds. Writes nothing; exit 2 when anything is invalid.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json", "yaml", "github", "sarif"); err != nil {
				return err
			}
			root, err := g.root()
			if err != nil {
				return err
			}
			in, problems, err := validateWorkspace(g, root)
			if err != nil {
				return &exitError{exitFailure, err}
			}
			if output == "sarif" {
				return validationSARIF(g, root, in, problems)
			}
			return reportValidation(g, output, in, problems)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json, yaml, github (workflow annotations) or sarif (SARIF 2.1.0, for code scanning)")
	return cmd
}

// validateWorkspace loads the inputs and, when they are valid, plans read-only to
// find skill names that hand-written skills hold.
func validateWorkspace(g *globals, root string) (controller.Inputs, registry.Problems, error) {
	in, err := controller.LoadInputs(g.request(g.readOnly(), root, false))
	var ps registry.Problems
	if errors.As(err, &ps) {
		return in, ps, nil
	}
	if err != nil {
		return in, nil, err
	}
	planned := controller.Reconcile(g.request(g.readOnly(), root, true))
	return in, desired.NamesTaken(in.Registry, planned.Withheld), nil
}

// keyNotes are, as notes at their lines, the front matter keys that some targets
// the skill is written to leave out.
func keyNotes(reg *registry.Registry, want desired.State) registry.Problems {
	var out registry.Problems
	for _, n := range desired.KeyNotes(reg, want) {
		if len(n.Dropped) == 0 {
			continue
		}
		kept := "no target"
		if len(n.Written) > 0 {
			kept = strings.Join(n.Written, ", ")
		}
		out = append(out, registry.Problem{Pos: n.At,
			Message: fmt.Sprintf("%s of skill %s is written in %s only; %s leave it out, as their clients would misread it or do not read it", n.Key, n.Skill, kept, strings.Join(n.Dropped, ", ")),
			Hint:    "skillsync explain " + n.Skill + " says what each client does with it"})
	}
	return out.Sorted()
}

// shadowNotes are, as notes at the sources' lines, the skills, capabilities
// and profiles of sources the workspace declares itself.
func shadowNotes(reg *registry.Registry) registry.Problems {
	var out registry.Problems
	for _, s := range reg.Shadowed {
		hint := "remove the workspace's own to take the source's, or leave it out of the source's include"
		if s.Kind != "skill" {
			hint = "remove the workspace's own to take the source's, or leave its file out of the source's registry"
		}
		out = append(out, registry.Problem{Pos: s.At,
			Message: fmt.Sprintf("%s %s of source %s is shadowed: the workspace declares its own, which is used instead", s.Kind, s.Name, s.Source),
			Hint:    hint})
	}
	return out
}

func reportValidation(g *globals, output string, in controller.Inputs, problems registry.Problems) error {
	code := exitOK
	if len(problems) > 0 {
		code = exitInvalid
	}
	switch {
	case documentFormat(output):
		report := validationJSON{typeMeta: kindOf(kindValidation), Valid: len(problems) == 0, ExitCode: code, Problems: problemReports(problems),
			Warnings: []problemReport{}, Notes: []problemReport{}}
		if len(problems) == 0 {
			report.Warnings = warningReports(registry.Warnings(in.Registry))
			want := desired.Build(in.Registry, in.Profile)
			report.Notes = reportsAs("notice", append(keyNotes(in.Registry, want), shadowNotes(in.Registry)...).Sorted())
			report.validationCounts = &validationCounts{Profile: in.Profile.Name, Files: len(in.Registry.Files),
				Capabilities: len(in.Registry.Capabilities), Skills: len(in.Registry.Skills), Profiles: len(in.Registry.Profiles),
				Desired: len(want.Files), Withheld: len(want.Withheld)}
		}
		return finish(code, writeDocument(g.stdout, output, report))
	case len(problems) > 0 && output == "github":
		annotate(g.stdout, problems)
		printProblems(g.stderr, problems)
		return &exitError{code: code}
	case len(problems) > 0:
		printProblems(g.stderr, problems)
		return &exitError{code: code}
	}
	warnings := registry.Warnings(in.Registry)
	want := desired.Build(in.Registry, in.Profile)
	notes := append(keyNotes(in.Registry, want), shadowNotes(in.Registry)...).Sorted()
	if output == "github" {
		annotateAs(g.stdout, "warning", warnings)
		annotateAs(g.stdout, "notice", notes)
	}
	for _, w := range warnings {
		fmt.Fprintf(g.stderr, "warning: %s\n", w)
	}
	for _, n := range notes {
		fmt.Fprintf(g.stderr, "note: %s\n", n)
	}
	fmt.Fprintf(g.stdout, "valid: %d capabilities, %d skills, %d profiles in %d file(s); profile %s, %d file(s) desired, %d withheld\n",
		len(in.Registry.Capabilities), len(in.Registry.Skills), len(in.Registry.Profiles), len(in.Registry.Files),
		in.Profile.Label(), len(want.Files), len(want.Withheld))
	// Whether a shorter file deletes anything depends on what is on disk: reconcile
	// refuses it only if it would.
	for _, cut := range in.CutOffs() {
		fmt.Fprintf(g.stderr, "note: %s:%d: the file is %d bytes shorter than the version last applied and otherwise the same; "+
			"a reconcile that would delete generated files because of it is refused until: skillsync accept %s\n", cut.File, cut.Line, cut.Lost, cut.File)
	}
	return nil
}

// validationSARIF writes every problem as an error, or, when there is none,
// every warning and note, as a SARIF log; the exit code is validate's.
func validationSARIF(g *globals, root string, in controller.Inputs, problems registry.Problems) error {
	code := exitOK
	var results []sarif.Result
	if len(problems) > 0 {
		code = exitInvalid
		results = problemResults(problems, sarif.Error, ruleInvalidInput)
		printProblems(g.stderr, problems)
	} else {
		want := desired.Build(in.Registry, in.Profile)
		results = append(problemResults(registry.Warnings(in.Registry), sarif.Warning, ruleWarning),
			problemResults(append(keyNotes(in.Registry, want), shadowNotes(in.Registry)...), sarif.Note, ruleNote)...)
	}
	return finish(code, sarifLog(g.stdout, g.sys, root, results))
}
