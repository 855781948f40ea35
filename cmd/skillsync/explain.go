package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// planned plans the workspace read-only, as status does, with what it sees
// beyond the plan.
func planned(g *globals) (controller.Outcome, seen, error) {
	root, err := g.root()
	if err != nil {
		return controller.Outcome{}, seen{}, err
	}
	sys := g.readOnly()
	out := controller.Reconcile(g.request(sys, root, true))
	if len(out.Problems) > 0 {
		printProblems(g.stderr, out.Problems)
		return out, seen{}, invalidInput(out.Problems)
	}
	if out.Err != nil {
		return out, seen{}, &exitError{exitFailure, out.Err}
	}
	ws, err := sys.Open(out.Registry.Root)
	if err != nil {
		return out, seen{}, &exitError{exitFailure, err}
	}
	defer ws.Close()
	return out, seen{evidence: observed.Evidence(ws, exec.LookPath), personal: personalSkills(sys, out.Registry.Root)}, nil
}

// seen is what a read-only pass finds beyond its plan: the evidence of each
// client's use, and the skills in the clients' personal directories.
type seen struct {
	evidence map[string][]string
	personal observed.PersonalSkills
}

// personalSkills reads the clients' personal skill directories in the home
// directory; none when there is no home, or the workspace is the home, whose
// project directories they are.
func personalSkills(sys workspacefs.System, root string) observed.PersonalSkills {
	home, err := os.UserHomeDir()
	if err != nil || filepath.Clean(home) == filepath.Clean(root) {
		return nil
	}
	dir, err := sys.Open(home)
	if err != nil {
		return nil
	}
	defer dir.Close()
	return observed.Personal(dir)
}

func newExplainCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "explain NAME",
		Short: "Say where a skill comes from, what becomes of it in each target, and which clients find it",
		Long: "explain plans like reconcile --check and tells, for one skill name, every declaration\n" +
			"that yields it, its file and state in each target (in sync, to change, in conflict,\n" +
			"withheld and why, hand-written), and which clients in use will find it and whether their\n" +
			"model may choose it on its own. It writes nothing.",
		Example: "  skillsync explain intent\n" +
			"  skillsync explain intent -o json",
		Args:              oneArg("a skill name", "skillsync list shows every name"),
		ValidArgsFunction: completeOne(g, skillNamesHere),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, "text", "json", "yaml"); err != nil {
				return err
			}
			out, found, err := planned(g)
			if err != nil {
				return err
			}
			e, ok := explainSkill(out, found, args[0])
			if !ok {
				return usageError("no skill is called %q: nothing declares it and no one wrote one%s", args[0], didYouMean(args[0], skillNames(out)))
			}
			if documentFormat(output) {
				return writeDocument(g.stdout, output, explanationJSONOf(e))
			}
			printExplanation(g, e)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	return cmd
}

func printExplanation(g *globals, e Explanation) {
	w := g.stdout
	fmt.Fprintln(w, e.Name)
	if len(e.Declarations) == 0 {
		fmt.Fprintln(w, "  declared nowhere: only a skill a person wrote")
	}
	for _, d := range e.Declarations {
		fmt.Fprintf(w, "  declared by %s at %s\n", d.Owner, d.At)
	}
	if e.Description != "" {
		fmt.Fprintf(w, "  listed for the model as: %s\n", e.Description)
	}
	switch {
	case e.Dir != "" && len(e.Files) == 0:
		fmt.Fprintf(w, "  read from %s/, with no file beside SKILL.md\n", e.Dir)
	case e.Dir != "":
		fmt.Fprintf(w, "  read from %s/, with %d file(s) beside SKILL.md: %s\n", e.Dir, len(e.Files), strings.Join(e.Files, ", "))
	}
	if o := e.Source; o != nil {
		switch {
		case o.Index != "":
			fmt.Fprintf(w, "  from source %s (index %s), as %s pins it\n", o.Source, o.Index, registry.LockName)
		case o.OCI != "":
			fmt.Fprintf(w, "  from source %s (oci %s, manifest %s), as %s pins it\n", o.Source, o.OCI, short(o.Digest), registry.LockName)
		default:
			fmt.Fprintf(w, "  from source %s (git %s, commit %s), as %s pins it\n", o.Source, o.Git, short(o.Commit), registry.LockName)
		}
		for _, signer := range slices.Sorted(maps.Keys(o.Signatures)) {
			fmt.Fprintf(w, "  signed by %s: signature %s of manifest %s, verified\n", signer, short(o.Signatures[signer]), short(o.Digest))
		}
	}
	for _, a := range e.Allowed {
		fmt.Fprintf(w, "  let through by the source's allow: %s\n", a)
	}
	for _, s := range e.Shadows {
		fmt.Fprintf(w, "  shadows the declaration of the same name from source %s: the workspace's own is used\n", s)
	}
	if e.Effect != "" {
		fmt.Fprintf(w, "  effect: %s (%s)\n", e.Effect, e.EffectFrom)
	}
	if e.KeptFromModel {
		fmt.Fprintln(w, "  kept from the model's own choice: a person runs it by name")
	}
	printFrontMatter(w, e.FrontMatter)
	fmt.Fprintln(w)
	rows := [][]string{{"  TARGET", "PATH", "STATE", "REASON"}}
	for _, t := range e.Targets {
		rows = append(rows, []string{"  " + t.Target, t.Path, t.State, withForce(t.Reason, t.Override)})
	}
	writeTable(w, rows)
	if len(e.Clients) == 0 {
		fmt.Fprintln(w, "\nno client in use will find it")
		return
	}
	fmt.Fprintln(w, "\nclients in use that will find it:")
	rows = nil
	for _, c := range e.Clients {
		how := "by name only"
		if c.Offered && e.KeptFromModel {
			how = "by name, and its model may choose it (the client cannot hide a skill)"
		} else if c.Offered {
			how = "by name, and its model may choose it"
		}
		if c.Personal != "" {
			how += fmt.Sprintf("; also personal in %s/%s: %s", c.Personal, e.Name, c.Clash)
		}
		rows = append(rows, []string{"  " + c.Client, strings.Join(c.Paths, ", "), how})
	}
	writeTable(w, rows)
}

// printFrontMatter says, per front matter key, where it is written and left
// out, and what the clients reading it do with it.
func printFrontMatter(w io.Writer, notes []desired.KeyNote) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintln(w, "  front matter:")
	for _, n := range notes {
		where := "written in " + strings.Join(n.Written, ", ")
		switch {
		case len(n.Written) == 0:
			where = "left out of " + strings.Join(n.Dropped, ", ")
		case len(n.Dropped) > 0:
			where += "; left out of " + strings.Join(n.Dropped, ", ")
		}
		fmt.Fprintf(w, "    %s: %s\n", n.Key, where)
		for _, f := range n.Facts {
			fmt.Fprintf(w, "      %s: %s\n", f.Client, f.Fact)
		}
	}
}

func newListCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every skill name: declared, generated or written by a person, and what becomes of it",
		Example: "  skillsync list\n" +
			"  skillsync list -o json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "json", "yaml"); err != nil {
				return err
			}
			out, found, err := planned(g)
			if err != nil {
				return err
			}
			var all []Explanation
			for _, name := range skillNames(out) {
				e, _ := explainSkill(out, found, name)
				all = append(all, e)
			}
			if documentFormat(output) {
				list := skillListJSON{typeMeta: kindOf(kindSkillList), Items: []explanationJSON{}}
				for _, e := range all {
					list.Items = append(list.Items, explanationJSONOf(e))
				}
				return writeDocument(g.stdout, output, list)
			}
			rows := [][]string{{"NAME", "FROM", "TARGETS"}}
			for _, e := range all {
				from := "hand-written"
				if len(e.Declarations) > 0 {
					var owners []string
					for _, d := range e.Declarations {
						owners = append(owners, d.Owner)
					}
					from = strings.Join(owners, ", ")
				}
				rows = append(rows, []string{e.Name, from, orDash(e.Summary())})
			}
			writeTable(g.stdout, rows)
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	return cmd
}
