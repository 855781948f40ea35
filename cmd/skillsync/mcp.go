package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/mcpsource"
	"github.com/spf13/cobra"
)

func newMCPCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "Record the tools of the MCP servers in spec.mcpSources as capabilities"}
	var (
		force   bool
		timeout time.Duration
	)
	refresh := &cobra.Command{
		Use:   "refresh [NAME...]",
		Short: "Ask each MCP source (or those named) for its tools and write its snapshot in the registry",
		Long: "refresh starts or connects to each server of spec.mcpSources (as .mcp.json or the source\n" +
			"configures it), lists its tools, and writes the capabilities they make into the source's\n" +
			"snapshot file, which reconcile, --check and CI then read without the server. A snapshot\n" +
			"is written only where there is none or skillsync wrote the one there, and is put back\n" +
			"as it was when the registry does not load with it.",
		Example: "  skillsync mcp refresh\n" +
			"  skillsync mcp refresh github --timeout 1m",
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.root()
			if err != nil {
				return err
			}
			in, err := controller.LoadInputs(g.readOnly(), root, g.profile, os.Getenv(desired.ProfileEnv))
			if err != nil && in.Registry == nil {
				return inputError(g.stderr, err)
			}
			var ps registry.Problems
			if err != nil && !errors.As(err, &ps) {
				return &exitError{exitFailure, err}
			}
			reg := in.Registry
			sources := reg.Config.Spec.MCPSources
			for _, name := range args {
				if !slices.ContainsFunc(sources, func(s registry.MCPSource) bool { return s.Name == name }) {
					return usageError("no MCP source is called %q in spec.mcpSources", name)
				}
			}
			if len(sources) == 0 {
				return usageError("spec.mcpSources in %s names no MCP server; see docs/mcp.md", registry.ConfigName)
			}
			config, err := readMCPConfig(g, reg.Root)
			if err != nil {
				return &exitError{exitInvalid, err}
			}
			failed := false
			for _, src := range sources {
				if len(args) > 0 && !slices.Contains(args, src.Name) {
					continue
				}
				if err := refreshSource(g, reg, src, config, force, timeout); err != nil {
					fmt.Fprintf(g.stderr, "skillsync: %s: %v\n", src.Name, err)
					failed = true
				}
			}
			if failed {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
	refresh.Flags().BoolVar(&force, "force", false, "replace a snapshot that was edited by hand")
	refresh.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "give up on a server after this long")
	cmd.AddCommand(refresh)
	return cmd
}

// readMCPConfig reads the workspace's .mcp.json; nil when there is none.
func readMCPConfig(g *globals, root string) ([]byte, error) {
	ws, err := g.readOnly().Open(root)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	data, err := ws.ReadRegular(mcpsource.ConfigFile, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// refreshSource lists the tools of src and writes its snapshot, put back as it was
// when the registry does not load with it.
func refreshSource(g *globals, reg *registry.Registry, src registry.MCPSource, config []byte, force bool, timeout time.Duration) error {
	server, err := mcpsource.ServerOf(src, config)
	if err != nil {
		return err
	}
	transport, err := server.Transport(os.Getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tools, err := mcpsource.List(ctx, transport)
	if err != nil {
		return fmt.Errorf("%w; nothing was written", err)
	}
	path, _ := reg.SnapshotPath(src)
	recorded, err := mcpsource.Snapshot(src, tools, path)
	if err != nil {
		return err
	}
	old, wrote, err := controller.WriteSnapshot(g.sys, reg.Root, path, recorded.Snapshot, force)
	if err != nil {
		return flagWords(err)
	}
	if _, err := controller.LoadInputs(g.readOnly(), reg.Root, g.profile, os.Getenv(desired.ProfileEnv)); err != nil && wrote {
		if restoreErr := controller.RestoreSnapshot(g.sys, reg.Root, path, old, recorded.Snapshot); restoreErr != nil {
			err = errors.Join(err, restoreErr)
		}
		var ps registry.Problems
		if errors.As(err, &ps) {
			printProblems(g.stderr, ps)
		}
		return fmt.Errorf("the registry does not load with what the server lists, so %s is as it was", path)
	}
	verb := "recorded"
	if !wrote {
		verb = "unchanged:"
	}
	fmt.Fprintf(g.stdout, "%s: %s %d of %d tools in %s\n", src.Name, verb, len(recorded.Tools), len(tools), path)
	for _, s := range recorded.Skipped {
		fmt.Fprintf(g.stdout, "  left out %s\n", s)
	}
	return nil
}
