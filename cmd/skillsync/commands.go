package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired"
	"github.com/spf13/cobra"
)

func newProfileCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "profile", Short: "List, show or choose the active capability profile",
		Example: "  skillsync profile list\n  skillsync profile use web-shell"}
	return groupOf(cmd, newProfileListCommand(g), &cobra.Command{
		Use:               "use NAME",
		Short:             "Make NAME the active profile of this workspace (.skillsync/profile)",
		Example:           "  skillsync profile use web-shell    this clone now generates the web-shell skills",
		Args:              oneArg("a profile name", "skillsync profile list shows them"),
		ValidArgsFunction: completeOne(g, profileNames),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.root()
			if err != nil {
				return err
			}
			if err := state.UseProfile(g.sys, root, g.config(), args[0]); err != nil {
				return inputError(g.stderr, err)
			}
			fmt.Fprintf(g.stdout, "profile %s is active; a running watcher applies it, otherwise run skillsync reconcile --once\n", args[0])
			if env := os.Getenv(desired.ProfileEnv); env != "" || g.profile != "" {
				fmt.Fprintf(g.stderr, "note: --profile or %s is set and takes precedence over %s\n", desired.ProfileEnv, desired.ProfileFile)
			}
			return nil
		},
	}, &cobra.Command{
		Use:     "show",
		Short:   "Print the active profile, where it comes from and what it announces",
		Example: "  skillsync profile show",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := profileInputs(g)
			if err != nil {
				return err
			}
			source := "nothing set"
			if in.Profile.Source != "" {
				source = in.Profile.Source
			}
			fmt.Fprintf(g.stdout, "%s (from %s)\n", in.Profile.Label(), source)
			if p, ok := in.Registry.ProfileNamed(in.Profile.Name); ok {
				for _, c := range p.Spec.Capabilities {
					fmt.Fprintf(g.stdout, "  %s\n", c)
				}
			}
			return nil
		},
	})
}

func newAcceptCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "accept FILE...",
		Short:   "Accept a registry file that is shorter than the version last applied",
		Example: "  skillsync accept registry/capabilities.yaml",
		Long: `A run refuses a config or registry file that is a strict prefix of the version it
last applied from: that is what a save cut off midway leaves, and applying it would
prune skills. If you removed the end of the file on purpose, accept it; the next
reconcile (or the running watcher) then applies it.`,
		Args: someArgs("the registry files to accept"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.root()
			if err != nil {
				return err
			}
			accepted, err := state.Accept(g.sys, root, g.config(), args)
			if err != nil {
				return inputError(g.stderr, err)
			}
			for _, f := range accepted {
				fmt.Fprintf(g.stdout, "accepted %s as it is now\n", f)
			}
			fmt.Fprintln(g.stdout, "next: a running watcher applies it; otherwise run skillsync reconcile --once")
			return nil
		},
	}
}

// newProbeCommand lets a container image without curl run its own health check.
func newProbeCommand(g *globals) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:     "probe URL",
		Short:   "GET a health endpoint (like http://127.0.0.1:8081/healthz); exit 0 on 200, else 4",
		Example: "  skillsync probe http://127.0.0.1:8081/readyz",
		Args:    oneArg("the URL of a health endpoint", "the watcher serves /healthz and /readyz at --health-addr"),
		// Plumbing for container health checks, not a command people type.
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			client := &http.Client{Timeout: timeout}
			resp, err := client.Get(args[0])
			if err != nil {
				return &exitError{exitFailure, err}
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
			fmt.Fprintf(g.stdout, "%d %s", resp.StatusCode, body)
			if resp.StatusCode != http.StatusOK {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "give up after this long")
	return cmd
}
