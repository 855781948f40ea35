package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// globals are the flags every command takes.
type globals struct {
	workspace string
	// user says --user: the workspace is the user's, at userRoot (the home
	// directory) with its config at userConfig, relative to it.
	user       bool
	userRoot   string
	userConfig string
	profile    string
	logFormat  string
	verbosity  int
	stdout     io.Writer
	stderr     io.Writer
	// sys is the disk, for commands that write; readOnly() for those that only read.
	sys workspacefs.System
	// offline keeps every command off the network (--offline).
	offline bool
	// sources is what reads the sources, made once so a watcher reads each
	// commit once.
	sources *transports
}

// readOnly is the system of a command that only reads: --check, validate,
// status. It refuses every write, so those commands cannot write by construction.
func (g *globals) readOnly() workspacefs.System { return workspacefs.NewReadOnly(g.sys) }

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{stdout: stdout, stderr: stderr, sys: workspacefs.OS{}}
	root := &cobra.Command{
		Use:   "skillsync",
		Args:  cobra.ArbitraryArgs,
		Short: "Keep agent skill files in step with the capability registry",
		Example: "  skillsync init               start a workspace here\n" +
			"  skillsync reconcile --once   write the skill files now\n" +
			"  skillsync diff               show what a run would change\n" +
			"  skillsync reconcile          keep them in step while you work",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if g.logFormat != "text" && g.logFormat != "json" {
				return usageError("--log-format must be text or json, not %q", g.logFormat)
			}
			if !g.user {
				return nil
			}
			if cmd.Flags().Changed("workspace") {
				return usageError("--user and --workspace name two different workspaces; give one")
			}
			var err error
			g.userRoot, g.userConfig, err = userWorkspace()
			return err
		},
	}
	// --version prints what `skillsync version` does.
	build := readBuildInfo()
	root.Version = build.Version
	root.SetVersionTemplate(build.String())
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	pf := root.PersistentFlags()
	pf.StringVar(&g.workspace, "workspace", os.Getenv("SKILLSYNC_WORKSPACE"), "workspace root (default $SKILLSYNC_WORKSPACE, else walk up from the current directory to skillsync.yaml)")
	pf.BoolVar(&g.user, "user", false, "act on the user workspace: the personal skill directories in your home directory, from the registry in your config directory")
	pf.StringVar(&g.profile, "profile", "", "active capability profile (overrides SKILLSYNC_PROFILE, .skillsync/profile and spec.profile)")
	pf.StringVar(&g.logFormat, "log-format", envOr("SKILLSYNC_LOG_FORMAT", "text"), "log format: text or json (default $SKILLSYNC_LOG_FORMAT, else text)")
	pf.IntVarP(&g.verbosity, "v", "v", 0, "log verbosity (0 quiet, 1 each change, 2 debug)")
	pf.BoolVar(&g.offline, "offline", false, "never use the network: read the sources skillsync.lock pins from the cache only, and name what it lacks")
	groupOf(root,
		newInitCommand(g),
		newValidateCommand(g),
		newReconcileCommand(g),
		newDiffCommand(g),
		newStatusCommand(g),
		newListCommand(g),
		newExplainCommand(g),
		newAdoptCommand(g),
		newForgetCommand(g),
		newMCPCommand(g),
		newProfileCommand(g),
		newAcceptCommand(g),
		newUpdateCommand(g),
		newOutdatedCommand(g),
		newPublishCommand(g),
		newServeCommand(g),
		newSBOMCommand(g),
		newVersionCommand(g),
		newProbeCommand(g),
	)
	return root
}

// root finds the workspace: the home directory with --user, --workspace, else
// the nearest skillsync.yaml upwards.
func (g *globals) root() (string, error) {
	if g.user {
		return g.userRoot, nil
	}
	if g.workspace != "" {
		return g.workspace, notTheUserHome(g.workspace)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", &exitError{exitFailure, err}
	}
	root, err := registry.FindRoot(cwd)
	if errors.Is(err, registry.ErrNoWorkspace) {
		return "", &exitError{exitInvalid, err}
	}
	if err != nil {
		return "", &exitError{exitFailure, err}
	}
	return root, notTheUserHome(root)
}

// logger logs to stderr at info and above; -v 1 adds each change of a --once run
// (debug level).
func (g *globals) logger() *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo - slog.Level(4*g.verbosity)}
	var h slog.Handler = slog.NewTextHandler(g.stderr, opts)
	if g.logFormat == "json" {
		h = slog.NewJSONHandler(g.stderr, opts)
	}
	return slog.New(h)
}

func usageError(format string, args ...any) error {
	return &exitError{exitInvalid, fmt.Errorf(format, args...)}
}

// checkOutput refuses an -o value outside allowed, every command's formats being
// a subset of one vocabulary: text, json, github.
func checkOutput(got string, allowed ...string) error {
	if slices.Contains(allowed, got) {
		return nil
	}
	return usageError("-o must be %s, not %q%s", strings.Join(allowed, " or "), got, didYouMean(got, allowed))
}

// flagError is a usage error that names the flag meant, where one is close.
func flagError(cmd *cobra.Command, err error) error {
	name, unknown := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !unknown {
		return usageError("%v", err)
	}
	var known []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			known = append(known, f.Name)
		}
	})
	if best := registry.Closest(name, known); best != "" {
		return usageError("%v (did you mean --%s?)", err, best)
	}
	return usageError("%v", err)
}

// didYouMean is " (did you mean "x"?)" for the entry of known closest to got, or
// "" when none is close.
func didYouMean(got string, known []string) string {
	if best := registry.Closest(got, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
