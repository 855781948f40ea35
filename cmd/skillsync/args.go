package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// groupOf makes cmd a command that only groups its subcommands, as kubectl's do:
// alone it prints its help, and with a word that names none of them it is a
// usage error with the closest name, rather than cobra's help and exit 0, which
// lets a typo in a script pass.
func groupOf(cmd *cobra.Command, subcommands ...*cobra.Command) *cobra.Command {
	cmd.AddCommand(subcommands...)
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		return usageError("unknown command %q for %q%s; %q lists its commands", args[0], cmd.CommandPath(),
			didYouMean(args[0], names), cmd.CommandPath()+" --help")
	}
	return cmd
}

// oneArg is the Args of a command that takes exactly one argument: what names
// it, like "a skill name", and where to find one when it is missing.
func oneArg(what, where string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return usageError("%s needs %s: %s (%s)", subcommand(cmd), what, usage(cmd), where)
		}
		return usageError("%s takes one argument, %s, not %d: %s", subcommand(cmd), what, len(args), usage(cmd))
	}
}

// someArgs is the Args of a command that takes one argument or more.
func someArgs(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageError("%s needs %s: %s", subcommand(cmd), what, usage(cmd))
		}
		return nil
	}
}

// subcommand is cmd's path without the root's name, which every message
// already starts with.
func subcommand(cmd *cobra.Command) string {
	_, path, _ := strings.Cut(cmd.CommandPath(), " ")
	return path
}

// usage is cmd's use line without cobra's "[flags]".
func usage(cmd *cobra.Command) string {
	if cmd.HasParent() {
		return cmd.Parent().CommandPath() + " " + cmd.Use
	}
	return cmd.Use
}
