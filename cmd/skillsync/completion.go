package main

import (
	"slices"
	"strings"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/spf13/cobra"
)

// The names a shell completes come from the workspace as it is. One that does
// not load completes nothing: a completion has nowhere to say why.

// completeOne completes the one argument of a command with the names names
// finds, and nothing after it.
func completeOne(g *globals, names func(*globals) []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withPrefix(names(g), toComplete, nil), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeEach completes every argument of a command with the names names
// finds, leaving out those already given.
func completeEach(g *globals, names func(*globals) []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(names(g), toComplete, args), cobra.ShellCompDirectiveNoFileComp
	}
}

func withPrefix(names []string, prefix string, given []string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && !slices.Contains(given, n) {
			out = append(out, n)
		}
	}
	return out
}

// skillNamesHere are the names list shows: declared, generated or hand-written.
func skillNamesHere(g *globals) []string {
	root, err := g.root()
	if err != nil {
		return nil
	}
	// A key press goes to no network: the sources' skills come from the cache
	// only.
	g.offline = true
	out := controller.Reconcile(g.request(g.readOnly(), root, true))
	if out.Registry == nil || !out.Planned {
		return nil
	}
	return skillNames(out)
}

func profileNames(g *globals) []string {
	if reg := registryHere(g); reg != nil {
		return reg.ProfileNames()
	}
	return nil
}

func mcpSourceNames(g *globals) []string {
	reg := registryHere(g)
	if reg == nil {
		return nil
	}
	var names []string
	for _, s := range reg.Config.Spec.MCPSources {
		names = append(names, s.Name)
	}
	return names
}

// registryHere is the workspace's registry as far as it loads.
func registryHere(g *globals) *registry.Registry {
	root, err := g.root()
	if err != nil {
		return nil
	}
	reg, _ := registry.LoadConfig(g.readOnly(), root, g.config(), nil)
	return reg
}
