package main

import (
	"os"
	"strings"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired"
	"github.com/spf13/cobra"
)

// profileJSON is one entry of profile list -o json.
type profileJSON struct {
	Name         string   `json:"name"`
	Capabilities []string `json:"capabilities"`
	Active       bool     `json:"active"`
}

// profileListJSON is what profile list -o json prints.
type profileListJSON struct {
	Active   string        `json:"active"` // "" for the empty profile
	From     string        `json:"from"`   // where the active profile is set; "" when nowhere
	Profiles []profileJSON `json:"profiles"`
}

func newProfileListCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the declared profiles and what each announces, the active one marked",
		Example: "  skillsync profile list\n" +
			"  skillsync profile list -o json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json"); err != nil {
				return err
			}
			root, err := g.root()
			if err != nil {
				return err
			}
			in, err := controller.LoadInputs(g.readOnly(), root, g.profile, os.Getenv(desired.ProfileEnv))
			if err != nil {
				return inputError(g.stderr, err)
			}
			list := profileListJSON{Active: in.Profile.Name, From: in.Profile.Source, Profiles: []profileJSON{}}
			for _, p := range in.Registry.Profiles {
				list.Profiles = append(list.Profiles, profileJSON{Name: p.Name, Capabilities: nonNil(p.Spec.Capabilities), Active: p.Name == in.Profile.Name})
			}
			if output == "json" {
				return writeJSON(g.stdout, list)
			}
			rows := [][]string{{"ACTIVE", "NAME", "ANNOUNCES"}}
			for _, p := range list.Profiles {
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
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}
