package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/authoring/forget"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/observed"
)

func newForgetCommand(g *globals) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "forget NAME",
		Short: "Hand a generated skill over to you: its files lose their banner and the name is disabled",
		Long: "forget stops skillsync managing the skill NAME, as chezmoi forget does, and leaves its\n" +
			"files in place: it takes the banner off every file generated for NAME, in every target,\n" +
			"so each becomes yours, and adds NAME to spec.disabled of skillsync.yaml, so the registry\n" +
			"no longer wants it. It shows both first and needs a yes, on the terminal or with --yes.\n" +
			"To hand the skill back, delete your files and remove NAME from spec.disabled.",
		Example: "  skillsync forget note\n" +
			"  skillsync forget --yes note",
		Args:              oneArg("a skill name", "skillsync list shows every name"),
		ValidArgsFunction: completeOne(g, skillNamesHere),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, _, err := planned(g)
			if err != nil {
				return err
			}
			name := args[0]
			files, err := generatedFilesOf(g, out, name)
			if err != nil {
				return err
			}
			reg := out.Registry
			ws, err := g.readOnly().Open(reg.Root)
			if err != nil {
				return &exitError{exitFailure, err}
			}
			config, err := ws.ReadRegular(reg.ConfigFile, observed.MaxFileSize)
			ws.Close()
			if err != nil {
				return &exitError{exitFailure, err}
			}
			edited, changed, err := forget.Disable(config, name)
			if err != nil {
				return &exitError{exitInvalid, fmt.Errorf("%s: %w; nothing was changed", reg.ConfigFile, err)}
			}
			printForget(g.stdout, files, reg.ConfigFile, config, edited, changed)
			if !yes && !confirmed(g, cmd.InOrStdin(), "forget") {
				fmt.Fprintln(g.stdout, "nothing changed")
				return nil
			}
			if !changed {
				edited = nil
			}
			if err := forget.Apply(g.sys, reg.Root, files, reg.ConfigFile, sha256.Sum256(config), edited); err != nil {
				return &exitError{exitFailure, err}
			}
			fmt.Fprintf(g.stdout, "%s is yours; skillsync no longer writes it\n", name)
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "forget without asking")
	return cmd
}

// generatedFilesOf reads every file skillsync generated for the skill name, in
// every target: those in the skill's directories whose banner names a
// declaration of name. A name the registry does not declare is a usage error.
func generatedFilesOf(g *globals, out controller.Outcome, name string) ([]forget.File, error) {
	owners := ownersOf(out.Registry, name)
	if owners == nil {
		known := skillNames(out)
		if slices.Contains(known, name) {
			return nil, usageError("%s is declared nowhere in the registry: skillsync does not write it, so there is nothing to forget", name)
		}
		return nil, usageError("no skill is named %q%s; skillsync list shows every name", name, didYouMean(name, known))
	}
	ws, err := g.readOnly().Open(out.Registry.Root)
	if err != nil {
		return nil, &exitError{exitFailure, err}
	}
	defer ws.Close()
	return forget.Generated(ws, plannedPaths(out), name, owners), nil
}

// plannedPaths is every path of the plan, in sync or to change, sorted.
func plannedPaths(out controller.Outcome) []string {
	paths := slices.Clone(out.Plan.InSync)
	for _, c := range out.Plan.Changes {
		paths = append(paths, c.Path)
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

func printForget(w io.Writer, files []forget.File, configFile string, config, edited []byte, changed bool) {
	for _, f := range files {
		fmt.Fprintf(w, "hand over  %s  (its banner removed: yours from now on)\n", f.Path)
	}
	if len(files) == 0 {
		fmt.Fprintln(w, "no generated file of it is on disk")
	}
	if changed {
		fmt.Fprint(w, unifiedDiff(configFile, config, edited))
	}
}
