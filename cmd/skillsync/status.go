package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/observed"
	"github.com/spf13/cobra"
)

func newStatusCommand(g *globals) *cobra.Command {
	var (
		output        string
		exitCode, all bool
	)
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show, per client, the skill directory, evidence of use, drift, conflicts and withheld skills",
		Long: "status plans like reconcile --check and reports per client: those with evidence of use\n" +
			"here and those whose own directory is a target (--all: every client). It writes nothing.\n" +
			"Like git status it exits 0 whatever the drift (2 on invalid input); with --exit-code\n" +
			"it exits as reconcile --check does: 1 changes pending, 3 conflicts.",
		Example: "  skillsync status                 what each client in use would see\n" +
			"  skillsync status -o json         the same for scripts\n" +
			"  skillsync status --exit-code     fail a script when anything is pending",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json", "yaml"); err != nil {
				return err
			}
			root, err := g.root()
			if err != nil {
				return err
			}
			sys := g.readOnly()
			out := controller.Reconcile(g.request(sys, root, true))
			if len(out.Problems) > 0 {
				printProblems(g.stderr, out.Problems)
				return invalidInput(out.Problems)
			}
			if out.Err != nil {
				return &exitError{exitFailure, out.Err}
			}
			ws, err := sys.Open(out.Registry.Root)
			if err != nil {
				return &exitError{exitFailure, err}
			}
			defer ws.Close()
			rows := clientStatus(out, observed.Evidence(ws, exec.LookPath), personalSkills(sys, out.Registry.Root))
			rec := clients.Recommend(inUse(rows))
			code := exitOK
			if exitCode {
				code = outcomeCode(out, true)
			}
			if documentFormat(output) {
				return finish(code, writeDocument(g.stdout, output, statusJSON{typeMeta: kindOf(kindStatus),
					Root: out.Registry.Root, Profile: out.Profile.Name, ProfileSource: out.Profile.Source, ExitCode: code,
					Clients: clientJSONs(rows), RecommendedTargets: append([]string{}, rec.Targets...), MCPEffects: mcpEffectJSONs(mcpEffects(out.Registry)),
				}))
			}
			printStatus(g, out, rows, all)
			printRecommendation(g, out, rows, rec)
			return finish(code, nil)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when changes are pending and 3 when conflicts remain")
	cmd.Flags().BoolVar(&all, "all", false, "show every client, not only those in use or targeted here")
	return cmd
}

func printStatus(g *globals, out controller.Outcome, all []ClientStatus, showAll bool) {
	clients, hidden := all, []string(nil)
	if !showAll {
		clients, hidden = shownClients(out.Registry.Targets(), all)
	}
	source := ""
	if out.Profile.Source != "" {
		source = " (from " + out.Profile.Source + ")"
	}
	if out.Registry.User() {
		fmt.Fprintf(g.stdout, "user workspace ~, config ~/%s, profile %s%s\n\n", out.Registry.ConfigFile, out.Profile.Label(), source)
	} else {
		fmt.Fprintf(g.stdout, "workspace %s, profile %s%s\n\n", out.Registry.Root, out.Profile.Label(), source)
	}
	rows := [][]string{{"CLIENT", "TARGET", "DIRECTORY", "EVIDENCE", "IN SYNC", "TO CHANGE", "CONFLICTS", "WITHHELD", "SEEN TWICE", "HAND-WRITTEN"}}
	for _, r := range clients {
		rows = append(rows, []string{r.Client, orDash(r.Target), orDash(r.Directory), orDash(strings.Join(r.Evidence, ", ")),
			fmt.Sprint(r.InSync), fmt.Sprint(r.ToChange), fmt.Sprint(r.Conflicts), fmt.Sprint(len(r.Withheld)), fmt.Sprint(len(r.SeenTwice)),
			fmt.Sprint(r.HandWritten)})
	}
	writeTable(g.stdout, rows)
	if len(hidden) > 0 {
		fmt.Fprintf(g.stdout, "not shown: %d clients with no evidence of use here (%s); skillsync status --all shows them\n",
			len(hidden), strings.Join(hidden, ", "))
	}
	printSeenTwice(g, clients)
	printPersonal(g, clients)
	printUnguarded(g, clients)
	if effects := mcpEffects(out.Registry); len(effects) > 0 {
		fmt.Fprintln(g.stdout, "\neffects of MCP tools (the servers' annotations are hints; a capability declared by hand wins):")
		rows = nil
		for _, e := range effects {
			rows = append(rows, []string{"  " + e.Capability, e.Effect, e.From})
		}
		writeTable(g.stdout, rows)
	}
	if len(out.Withheld) > 0 {
		fmt.Fprintln(g.stdout, "\nwithheld:")
		rows = nil
		for _, w := range out.Withheld {
			rows = append(rows, []string{"  " + w.Skill, w.Target, w.Reason})
		}
		writeTable(g.stdout, rows)
	}
	if n := out.Plan.Pending() + out.Plan.Count(plan.Conflict); n > 0 {
		fmt.Fprintln(g.stdout)
		printPlan(g.stdout, out, true, false)
	}
}

// inUse names the clients with evidence of use.
func inUse(rows []ClientStatus) []string {
	var names []string
	for _, r := range rows {
		if len(r.Evidence) > 0 {
			names = append(names, r.Client)
		}
	}
	return names
}

// printRecommendation names better targets when a client in use is served by no
// enabled directory or sees a skill twice, and other targets would do better.
func printRecommendation(g *globals, out controller.Outcome, rows []ClientStatus, rec clients.Recommendation) {
	amiss := slices.ContainsFunc(rows, func(r ClientStatus) bool {
		return len(r.Evidence) > 0 && (r.Target == "" || len(r.SeenTwice) > 0)
	})
	enabled := slices.Sorted(slices.Values(out.Registry.Targets()))
	if !amiss || rec.Targets == nil || slices.Equal(slices.Sorted(slices.Values(rec.Targets)), enabled) {
		return
	}
	how := "from one directory each"
	if len(rec.Twice) > 0 {
		how = "with the fewest duplicates"
	}
	fmt.Fprintf(g.stdout, "\nhint: targets [%s] reach every client in use %s; set them as spec.targets in %s\n",
		strings.Join(rec.Targets, ", "), how, registry.ConfigName)
}

// printPersonal names, per client, the skills of this workspace of which the
// user's home holds a personal copy the client reads too, and which of the two
// its model is shown.
func printPersonal(g *globals, rows []ClientStatus) {
	first := true
	for _, r := range rows {
		if len(r.Personal) == 0 {
			continue
		}
		if first {
			fmt.Fprintln(g.stdout, "\nalso personal (the home directory holds a skill of the same name that the client reads too):")
			first = false
		}
		found := make([]string, len(r.Personal))
		for i, p := range r.Personal {
			found[i] = p.Skill + " in " + p.Dir
		}
		fmt.Fprintf(g.stdout, "  %s: %s; %s\n", r.Client, strings.Join(found, ", "), r.Clash)
	}
}

// printUnguarded names each client in use that would offer its model skills
// meant to be kept from it.
func printUnguarded(g *globals, clients []ClientStatus) {
	var rows [][]string
	for _, r := range clients {
		if len(r.Unguarded) > 0 && len(r.Evidence) > 0 {
			rows = append(rows, []string{"  " + r.Client, strings.Join(r.Unguarded, ", ")})
		}
	}
	if rows == nil {
		return
	}
	fmt.Fprintln(g.stdout, "\ncannot keep from the model (each client below is in use, has no way to hide a skill from its model, and reads a directory that holds these write or destructive skills):")
	writeTable(g.stdout, rows)
}

// shownClients are the rows status shows: the clients with evidence of use, and
// those whose own directory is one of the enabled targets; hidden names the rest.
func shownClients(targets []string, rows []ClientStatus) (shown []ClientStatus, hidden []string) {
	own := map[string]bool{}
	for _, t := range clients.Targets {
		if t.Owner != "" && slices.Contains(targets, t.Name) {
			own[t.Owner] = true
		}
	}
	for _, r := range rows {
		if len(r.Evidence) > 0 || own[r.Client] {
			shown = append(shown, r)
		} else {
			hidden = append(hidden, r.Client)
		}
	}
	return shown, hidden
}

// printSeenTwice says, in a line per client, which skills it finds in two
// enabled directories and what the client then does, which says whether it
// matters.
func printSeenTwice(g *globals, rows []ClientStatus) {
	first := true
	for _, r := range rows {
		if len(r.SeenTwice) == 0 {
			continue
		}
		if first {
			fmt.Fprintln(g.stdout, "\nseen twice (a client that reads two enabled directories finds these skills in both):")
			first = false
		}
		then := r.Duplicates
		if then == "" {
			then = "what it does then is not recorded"
		}
		fmt.Fprintf(g.stdout, "  %s: %s; %s\n", r.Client, strings.Join(r.SeenTwice, ", "), then)
	}
}
