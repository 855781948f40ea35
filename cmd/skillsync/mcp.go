package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/authoring/snapshot"
	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/watch"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/mcp"
)

func newMCPCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "Record the tools of the MCP servers in spec.mcpSources as capabilities",
		Example: "  skillsync mcp refresh"}
	var (
		force   bool
		timeout time.Duration
	)
	refresh := &cobra.Command{
		Use:               "refresh [NAME...]",
		ValidArgsFunction: completeEach(g, mcpSourceNames),
		Short:             "Ask each MCP source (or those named) for its tools and write its snapshot in the registry",
		Long: "refresh starts or connects to each server of spec.mcpSources (as .mcp.json or the source\n" +
			"configures it), lists its tools, and writes the capabilities they make into the source's\n" +
			"snapshot file, which reconcile, --check and CI then read without the server. A snapshot\n" +
			"is written only where there is none or skillsync wrote the one there, and is put back\n" +
			"as it was (or not written, where there was none) when the registry does not load with it.",
		Example: "  skillsync mcp refresh\n" +
			"  skillsync mcp refresh github --timeout 1m",
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.root()
			if err != nil {
				return err
			}
			in, err := controller.LoadInputs(g.request(g.readOnly(), root, false))
			if err != nil && in.Registry == nil {
				return inputError(g.stderr, err)
			}
			var ps registry.Problems
			if err != nil && !errors.As(err, &ps) {
				return &exitError{exitFailure, err}
			}
			reg := in.Registry
			// A snapshot that does not load is what a refresh may mend; any other
			// problem stops it before a server is asked.
			if outside := reg.OutsideSnapshots(ps); len(outside) > 0 {
				return inputError(g.stderr, outside)
			}
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
			configuring, err := configuringClients(g, reg.Root)
			if err != nil {
				return &exitError{exitFailure, err}
			}
			var chosen []registry.MCPSource
			for _, src := range sources {
				if len(args) == 0 || slices.Contains(args, src.Name) {
					chosen = append(chosen, src)
				}
			}
			failed := false
			for i, listed := range listSources(reg, chosen, config, timeout) {
				src := chosen[i]
				if err := recordSource(g, reg, src, listed, force); err != nil {
					fmt.Fprintf(g.stderr, "skillsync: %s: %v\n", src.Name, err)
					failed = true
					continue
				}
				if len(configuring[src.Name]) == 0 {
					fmt.Fprintf(g.stdout, "  note: no client configuration here (%s) names a server %q; the skills name its tools by that name, so configure it under that name\n",
						strings.Join(configFiles(g.user), ", "), src.Name)
				}
			}
			if failed {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
	refresh.Flags().BoolVar(&force, "force", false, "replace a snapshot that was edited by hand")
	refresh.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "give up on the servers after this long: it bounds starting, asking and stopping them all")
	return groupOf(cmd, refresh)
}

// readMCPConfig reads the Claude Code configuration of the workspace's MCP
// servers: .mcp.json, or ~/.claude.json for the user workspace.
func readMCPConfig(g *globals, root string) (mcp.Config, error) {
	file := clients.ServerConfig(g.user).File
	ws, err := g.readOnly().Open(root)
	if err != nil {
		return mcp.Config{File: file}, err
	}
	defer ws.Close()
	return mcp.ReadConfig(ws, file)
}

// configuringClients reads which servers the clients' configurations name.
func configuringClients(g *globals, root string) (map[string][]string, error) {
	ws, err := g.readOnly().Open(root)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return mcp.Configuring(ws, g.user), nil
}

func configFiles(user bool) []string {
	var files []string
	for _, c := range clients.MCPConfigs(user) {
		files = append(files, c.File)
	}
	return files
}

// listed is what one source's server listed, or why it did not.
type listed struct {
	listing mcp.Listing
	err     error
}

// listSources asks the server of each source for what it declares, all at once,
// within timeout, which bounds the whole of it: a server still running then is
// killed.
func listSources(reg *registry.Registry, sources []registry.MCPSource, config mcp.Config, timeout time.Duration) []listed {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out := make([]listed, len(sources))
	var wg sync.WaitGroup
	for i, src := range sources {
		wg.Go(func() {
			out[i].listing, out[i].err = listSource(ctx, reg, src, config)
			if errors.Is(out[i].err, context.DeadlineExceeded) {
				out[i].err = fmt.Errorf("%w; no answer within --timeout %s", out[i].err, timeout)
			}
		})
	}
	wg.Wait()
	return out
}

func listSource(ctx context.Context, reg *registry.Registry, src registry.MCPSource, config mcp.Config) (mcp.Listing, error) {
	server, err := mcp.ServerOf(reg, src, config)
	if err != nil {
		return mcp.Listing{}, err
	}
	server.Dir = reg.Root
	transport, err := server.Transport(os.LookupEnv)
	if err != nil {
		return mcp.Listing{}, err
	}
	return mcp.List(ctx, src, transport)
}

// recordSource writes the snapshot of what the server of src listed, put back as
// it was (or removed, where there was none) when the registry does not load with
// it.
func recordSource(g *globals, reg *registry.Registry, src registry.MCPSource, l listed, force bool) error {
	if l.err != nil {
		return fmt.Errorf("%w; nothing was written", l.err)
	}
	listing := l.listing
	path, _ := reg.SnapshotPath(src)
	recorded, err := mcp.Snapshot(src, listing, path)
	if err != nil {
		return err
	}
	wrote, err := snapshot.Record(g.sys, reg.Root, reg.ConfigFile, path, recorded.Snapshot, force)
	var rejected *snapshot.RejectedError
	if errors.As(err, &rejected) && len(rejected.Problems) > 0 {
		// The snapshot's lines are nowhere once it is put back: its problems point
		// at what the server said.
		printProblemsUnder(g.stderr, fmt.Sprintf("skillsync: %s: the snapshot would not load (%d problem(s)):", src.Name, len(rejected.Problems)),
			recorded.Locate(rejected.Problems, path))
	}
	if err != nil {
		return flagWords(err)
	}
	verb := "recorded"
	if !wrote {
		verb = "unchanged:"
	}
	fmt.Fprintf(g.stdout, "%s: %s %d of %d tools%s in %s\n", src.Name, verb, len(recorded.Tools), len(listing.Tools), skillCount(src, recorded, listing), path)
	for _, s := range recorded.Skipped {
		fmt.Fprintf(g.stdout, "  left out %s\n", s)
	}
	return nil
}

// skillCount says how many of the skills the server publishes were recorded,
// when the source selects published skills.
func skillCount(src registry.MCPSource, recorded mcp.Recorded, listing mcp.Listing) string {
	if src.PublishedSkills == nil {
		return ""
	}
	return fmt.Sprintf(" and %d of %d published skills", len(recorded.Skills), len(listing.Skills))
}

// errNotYetAnswered is a followed source before its server first answers.
var errNotYetAnswered = errors.New("connecting: the server has not answered yet")

// sourceFollowers is what the watcher starts on each tree it works on: a
// follower of each MCP source there, which keeps the source's snapshot in that
// tree in step with its live server until the watcher leaves the tree. A server
// that fails makes /readyz name it, and its last snapshot stays in force.
func sourceFollowers(g *globals, tracker *watch.Tracker, log *slog.Logger) func(ctx context.Context, root string) {
	var reports sync.Mutex // a follower of a tree left behind reports nothing more
	return func(ctx context.Context, root string) {
		reports.Lock()
		tracker.ForgetSources()
		reports.Unlock()
		report := func(name string, err error) bool {
			reports.Lock()
			defer reports.Unlock()
			if ctx.Err() != nil {
				return false
			}
			tracker.SetSource(name, err)
			return true
		}
		followSources(ctx, g, root, report, log)
	}
}

// The states of a followed MCP source, for its log lines: each change is
// logged once.
const (
	notYetAnswered = iota
	answering
	failing
)

// followSources starts a follower of each MCP source of the workspace at root,
// until ctx ends; report records whether a source answers, and says false once
// the follower's reports no longer count.
func followSources(ctx context.Context, g *globals, root string, report func(name string, err error) bool, log *slog.Logger) {
	in, _ := controller.LoadInputs(controller.Request{System: g.readOnly(), Root: root, ConfigFile: g.config()})
	if in.Registry == nil {
		return // the watcher reports why the workspace does not load
	}
	reg := in.Registry
	config, err := readMCPConfig(g, reg.Root)
	// A source whose published skills the workspace may not take is not
	// asked, as mcp refresh asks it nothing.
	policy, policyErr := orgPolicy()
	refused := reg.RefusedMCPSkills(policy)
	for _, src := range reg.Config.Spec.MCPSources {
		server, serverErr := mcp.ServerOf(reg, src, config)
		server.Dir = reg.Root
		path, ok := reg.SnapshotPath(src)
		problem, isRefused := refused[src.Name]
		switch {
		case policyErr != nil:
			serverErr = policyErr
		case isRefused:
			serverErr = errors.New(problem.String())
		case err != nil:
			serverErr = err
		case !ok:
			serverErr = fmt.Errorf("no registry pattern names a file for its snapshot")
		}
		if serverErr != nil {
			report(src.Name, serverErr)
			log.Warn("MCP source not followed", "server", src.Name, "err", serverErr)
			continue
		}
		state := notYetAnswered
		follower := mcp.Follower{Source: src, Server: server, Path: path, Lookup: os.LookupEnv,
			Timeout: 30 * time.Second, Backoff: time.Second, MaxBackoff: 30 * time.Second,
			Write: func(content []byte) error {
				wrote, err := snapshot.Record(g.sys, reg.Root, reg.ConfigFile, path, content, false)
				if wrote {
					log.Info("MCP tools recorded", "server", src.Name, "snapshot", path)
				}
				return flagWords(err)
			},
			Report: func(err error) {
				if !report(src.Name, err) {
					return
				}
				switch {
				case err != nil && state != failing:
					log.Warn("MCP server unavailable; its last snapshot stays in force", "server", src.Name, "err", err)
				case err == nil && state == notYetAnswered:
					log.Info("MCP server connected; following its tools", "server", src.Name)
				case err == nil && state == failing:
					log.Info("MCP server answers again", "server", src.Name)
				}
				state = answering
				if err != nil {
					state = failing
				}
			},
		}
		// Not ready until the server has answered, or failed, once.
		report(src.Name, errNotYetAnswered)
		log.Info("following MCP source", "server", src.Name, "snapshot", path)
		go follower.Run(ctx)
	}
}
