package main

import (
	"strings"

	"github.com/skillsync/skillsync/controller"
	"github.com/spf13/cobra"
)

func newProfileListCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the declared profiles and what each announces, the active one marked",
		Example: "  skillsync profile list\n" +
			"  skillsync profile list -o json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json", "yaml"); err != nil {
				return err
			}
			in, err := profileInputs(g)
			if err != nil {
				return err
			}
			list := profileListJSON{typeMeta: kindOf(kindProfileList), Active: in.Profile.Name, From: in.Profile.Source, Items: []profileJSON{}}
			for _, p := range in.Registry.Profiles {
				list.Items = append(list.Items, profileJSON{typeMeta: kindOf(kindProfile), Name: p.Name, Capabilities: nonNil(p.Spec.Capabilities), Active: p.Name == in.Profile.Name})
			}
			if documentFormat(output) {
				return writeDocument(g.stdout, output, list)
			}
			rows := [][]string{{"ACTIVE", "NAME", "ANNOUNCES"}}
			for _, p := range list.Items {
				mark := ""
				if p.Active {
					mark = "*"
				}
				rows = append(rows, []string{mark, p.Name, orDash(strings.Join(p.Capabilities, ", "))})
			}
			writeTable(g.stdout, rows)
			if in.Profile.Name == "" {
				g.stdout.Write([]byte("active: the empty profile, which announces nothing (no profile is set)\n"))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	return cmd
}

// profileInputs are the workspace's inputs as the profile commands read them:
// the registry, and the profile active by the flag, the environment and the
// workspace's files; invalid input is printed and exits 2.
func profileInputs(g *globals) (controller.Inputs, error) {
	root, err := g.root()
	if err != nil {
		return controller.Inputs{}, err
	}
	in, err := controller.LoadInputs(g.request(g.readOnly(), root, false))
	if err != nil {
		return controller.Inputs{}, inputError(g.stderr, err)
	}
	return in, nil
}
