package main

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/authoring/starter"
	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/printable"
	"github.com/skillsync/skillsync/sources/mcp"
)

func newInitCommand(g *globals) *cobra.Command {
	var dryRun, here bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Start a workspace: skillsync.yaml for the clients and MCP servers found here, and a registry",
		Long: "init looks for the clients in use (their files here, their programs on PATH), the MCP\n" +
			"servers of .mcp.json and the skills people already wrote, then writes skillsync.yaml with\n" +
			"the targets that reach those clients and registry/capabilities.yaml with an example to\n" +
			"uncomment, and lists the servers of .mcp.json as spec.mcpSources for skillsync mcp refresh.\n" +
			"It never overwrites a file; --dry-run prints what it would write. Inside a workspace it\n" +
			"refuses, naming it; --here starts a nested workspace on purpose.",
		Example: "  skillsync init                     start a workspace here\n" +
			"  skillsync init --dry-run           show what it would write, write nothing\n" +
			"  skillsync init --workspace ../app  start one in ../app",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.user {
				return initUser(g, dryRun)
			}
			dir := g.workspace
			if dir == "" {
				dir = "."
			}
			if err := notInsideAWorkspace(dir, here); err != nil {
				return err
			}
			if err := notTheUserHome(dir); err != nil {
				return err
			}
			found, err := starter.Look(g.readOnly(), dir, exec.LookPath)
			if err != nil {
				return &exitError{exitInvalid, err}
			}
			start := starter.Plan(found, starter.Ref(readBuildInfo().Version))
			printFound(g.stdout, start)
			if dryRun {
				for _, f := range start.Files {
					fmt.Fprintf(g.stdout, "\nwould create %s:\n%s", f.Path, f.Content)
				}
				return nil
			}
			var files []apply.NewFile
			for _, f := range start.Files {
				files = append(files, apply.NewFile{Path: f.Path, Content: []byte(f.Content)})
			}
			err = starter.Init(g.sys, dir, files)
			if errors.Is(err, apply.ErrExists) || errors.Is(err, apply.ErrLeadsOut) {
				return &exitError{exitInvalid, err}
			}
			if err != nil {
				return &exitError{exitFailure, err}
			}
			for _, f := range start.Files {
				fmt.Fprintf(g.stdout, "created %s\n", f.Path)
			}
			if len(start.Servers) > 0 {
				fmt.Fprintf(g.stdout, "next: skillsync mcp refresh records the tools of %s as capabilities (it starts the servers as your clients do)\n",
					strings.Join(start.Servers, ", "))
			}
			fmt.Fprintln(g.stdout, "next: uncomment the example in registry/capabilities.yaml, then skillsync reconcile --once")
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what init would write, and write nothing")
	cmd.Flags().BoolVar(&here, "here", false, "start a workspace here even inside another one")
	return cmd
}

// initUser starts the user workspace: its config and registry in the user's
// config directory.
func initUser(g *globals, dryRun bool) error {
	start := starter.UserPlan(starter.Ref(readBuildInfo().Version))
	if dryRun {
		for _, f := range start {
			fmt.Fprintf(g.stdout, "would create ~/%s:\n%s\n", path.Join(path.Dir(g.userConfig), f.Path), f.Content)
		}
		return nil
	}
	// Created from the home directory, as every other command reads them: a
	// config directory that leads out of it by a symlink is refused here too.
	var files []apply.NewFile
	for _, f := range start {
		files = append(files, apply.NewFile{Path: path.Join(path.Dir(g.userConfig), f.Path), Content: []byte(f.Content)})
	}
	err := starter.Init(g.sys, g.userRoot, files)
	if errors.Is(err, apply.ErrExists) || errors.Is(err, apply.ErrLeadsOut) {
		return &exitError{exitInvalid, err}
	}
	if err != nil {
		return &exitError{exitFailure, err}
	}
	for _, f := range start {
		fmt.Fprintf(g.stdout, "created ~/%s\n", path.Join(path.Dir(g.userConfig), f.Path))
	}
	fmt.Fprintln(g.stdout, "next: skillsync --user adopt ~/.claude/skills/NAME takes over a personal skill; skillsync --user reconcile --once writes them all")
	return nil
}

// printFound says what init found and chose: the clients in use and the targets
// for them, the MCP server, and the skills people wrote.
func printFound(w io.Writer, s starter.Start) {
	rec := s.Targets
	targets := strings.Join(rec.Targets, ", ")
	if len(s.InUse) == 0 {
		fmt.Fprintf(w, "no client found in use here; targets %s reach every client skillsync verifies\n", targets)
	} else {
		fmt.Fprintln(w, "clients in use:")
		var rows [][]string
		for _, c := range clients.All {
			if found := s.InUse[c.Name]; len(found) > 0 {
				rows = append(rows, []string{"  " + c.Name, strings.Join(starter.Names(found), ", ")})
			}
		}
		writeTable(w, rows)
		subject, object := "targets "+targets+" reach", "each of them"
		if len(rec.Targets) == 1 {
			subject = "target " + targets + " reaches"
		}
		if len(rows) == 1 {
			object = "it"
		}
		fmt.Fprintf(w, "%s %s", subject, object)
		if len(rec.Twice) == 0 {
			fmt.Fprint(w, " from one directory")
		}
		fmt.Fprintln(w)
	}
	if n := len(rec.Twice); n > 0 {
		verb := "reads"
		if n > 1 {
			verb = "read"
		}
		fmt.Fprintf(w, "note: %s %s two of these directories and may list a skill twice; no set of targets that reaches all these clients avoids it\n",
			strings.Join(rec.Twice, ", "), verb)
	}
	switch {
	case len(s.Servers) == 0:
		fmt.Fprintf(w, "MCP server: none found (no %s); name yours in skillsync.yaml\n", mcp.ConfigFile)
	default:
		fmt.Fprintf(w, "MCP server: %s (from %s", s.Server, mcp.ConfigFile)
		if len(s.Servers) > 1 {
			fmt.Fprintf(w, "; also %s", strings.Join(s.Servers[1:], ", "))
		}
		fmt.Fprintln(w, ")")
	}
	if len(s.HandWritten) > 0 {
		fmt.Fprintf(w, "skills people wrote (never changed by skillsync): %s\n", strings.Join(starter.Names(s.HandWritten), ", "))
	}
	for _, u := range s.Unseen {
		fmt.Fprintf(w, "note: %s does not reach %s, in use here; skillsync adopt %s writes it to every target\n",
			printable.Name(u.Path), strings.Join(u.Clients, ", "), printable.Name(path.Dir(u.Path)))
	}
}

// notInsideAWorkspace refuses to start a workspace in dir when a directory
// above it holds one already, which status and reconcile there would use, as
// git init warns of nothing and leaves people with two: unless here says so.
func notInsideAWorkspace(dir string, here bool) error {
	if here {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return &exitError{exitFailure, err}
	}
	root, err := registry.FindRoot(abs)
	if err != nil || root == abs {
		return nil // none above, or one here, which init refuses to overwrite
	}
	return usageError("%s is inside the workspace whose %s is at %s: status, reconcile and the watcher there cover it; "+
		"skillsync init --here starts a nested workspace of its own", abs, registry.ConfigName, root)
}
