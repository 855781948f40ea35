package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillsync/skillsync/authoring/update"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/spf13/cobra"
)

// outdatedJSON is what outdated prints with -o json: how each source stands
// against its remote now.
type outdatedJSON struct {
	typeMeta
	// Outdated says some source is: update would move it, or a newer release
	// is there to move its ref to.
	Outdated bool                 `json:"outdated"`
	ExitCode int                  `json:"exitCode"`
	Sources  []outdatedSourceJSON `json:"sources"`
}

type outdatedSourceJSON struct {
	Name string `json:"name"`
	Ref  string `json:"ref,omitempty"`
	// Index is the source's discovery index, when it is one: then locked
	// and current are the index's digests.
	Index string `json:"index,omitempty"`
	// Locked is the commit skillsync.lock pins; absent when it does not pin
	// the source as skillsync.yaml declares it.
	Locked string `json:"locked,omitempty"`
	// Current is the commit ref names now.
	Current string `json:"current"`
	// Newer are the release tags above ref, when ref is one, newest first.
	Newer    []string `json:"newer"`
	Outdated bool     `json:"outdated"`
}

func newOutdatedCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "outdated [SOURCE...]",
		Short: "Say which sources have moved since skillsync.lock, or have newer releases; change nothing",
		Long: `For each source skillsync.yaml declares (or those named), resolve its ref on the
network and compare the commit with the one skillsync.lock pins; when the ref is a
release tag (v1.2.3), list the remote's releases above it. Nothing is written:
skillsync update moves the lock, after showing what changes.
Exit codes: 0 every source is current, 1 some source is outdated, 2 invalid input,
4 any other failure (a source that cannot be reached).`,
		Example: "  skillsync outdated            every source\n" +
			"  skillsync outdated team -o json",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, "text", "json", "yaml"); err != nil {
				return err
			}
			if g.offline {
				return usageError("outdated asks the remotes; --offline cannot go with it")
			}
			reg, err := g.declarations()
			if err != nil {
				return err
			}
			if err := checkSourceNames(reg, args); err != nil {
				return err
			}
			if err := g.checkTrust(reg); err != nil {
				return err
			}
			_, lock, err := update.ReadLock(g.readOnly(), reg.Root, reg.InConfigDir(registry.LockName))
			var problems registry.Problems
			if err != nil && !errors.As(err, &problems) {
				return &exitError{exitFailure, err}
			}
			report, err := update.CheckOutdated(reg, lock, args, g.sourceReader())
			if err != nil {
				return &exitError{exitFailure, err}
			}
			doc := outdatedJSON{typeMeta: kindOf(kindOutdated), Sources: []outdatedSourceJSON{}}
			for _, o := range report {
				doc.Sources = append(doc.Sources, outdatedSourceJSON{Name: o.Source, Ref: o.Ref, Index: indexOf(reg, o.Source), Locked: o.Locked, Current: o.Now,
					Newer: append([]string{}, o.Newer...), Outdated: o.Behind()})
				doc.Outdated = doc.Outdated || o.Behind()
			}
			if doc.Outdated {
				doc.ExitCode = exitChanges
			}
			if documentFormat(output) {
				return finish(doc.ExitCode, writeDocument(g.stdout, output, doc))
			}
			printOutdated(g, reg, doc)
			return finish(doc.ExitCode, nil)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	return cmd
}

func printOutdated(g *globals, reg *registry.Registry, doc outdatedJSON) {
	if len(doc.Sources) == 0 {
		fmt.Fprintf(g.stdout, "%s declares no sources\n", reg.ConfigFile)
		return
	}
	rows := [][]string{{"SOURCE", "REF", "LOCKED", "NOW", "NEWER RELEASES"}}
	behind := 0
	for _, s := range doc.Sources {
		locked := short(s.Locked)
		if s.Locked == "" {
			locked = "(not locked)"
		}
		newer := strings.Join(s.Newer, ", ")
		if newer == "" {
			newer = "-"
		}
		rows = append(rows, []string{s.Name, pinnedBy(s.Ref, s.Index != ""), locked, short(s.Current), newer})
		if s.Outdated {
			behind++
		}
	}
	writeTable(g.stdout, rows)
	if behind == 0 {
		fmt.Fprintln(g.stdout, "every source is as skillsync.lock pins it")
		return
	}
	fmt.Fprintf(g.stdout, "%d source(s) outdated: skillsync update shows and moves what the refs name now; change a ref in %s to take a newer release\n", behind, reg.ConfigFile)
}

// indexOf is the discovery index of the source name of reg, "" for a git one.
func indexOf(reg *registry.Registry, name string) string {
	for _, s := range reg.Config.Spec.Sources {
		if s.Name == name {
			return s.Index
		}
	}
	return ""
}
