package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/spf13/cobra"
)

// Set by release builds: -ldflags "-X main.version=v1.2.3 -X main.commit=… -X main.date=…".
// Without them the module version and VCS stamp Go records are used, so `go install
// …@v1.2.3` and a build from a git checkout say what they are too.
var version, commit, date string

// buildInfo is what `skillsync version` reports (versionJSON is its -o json).
type buildInfo struct {
	Version    string
	Commit     string
	Modified   bool
	CommitDate string
	BuildDate  string
	GoVersion  string
	Platform   string
	APIVersion string
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Commit: commit, BuildDate: date, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, APIVersion: registry.APIVersion}
	if info, ok := debug.ReadBuildInfo(); ok {
		fromModule(&b, info)
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	return b
}

// fromModule fills in what the linker flags left empty from what the go command
// recorded: the module version (v1.2.3 for go install …@v1.2.3, a pseudo-version
// for a build in a git checkout) and the VCS revision, commit time and modified
// flag. A release build's own commit stands for all three.
func fromModule(b *buildInfo, info *debug.BuildInfo) {
	if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && b.Commit == "":
			b.Commit = s.Value
		case s.Key == "vcs.time" && commit == "":
			b.CommitDate = s.Value
		case s.Key == "vcs.modified" && commit == "":
			b.Modified = s.Value == "true"
		}
	}
}

func (b buildInfo) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "skillsync %s\n", b.Version)
	if b.Commit != "" {
		modified := ""
		if b.Modified {
			modified = " (with uncommitted changes)"
		}
		fmt.Fprintf(&s, "  commit:     %s%s\n", b.Commit, modified)
	}
	if b.CommitDate != "" {
		fmt.Fprintf(&s, "  committed:  %s\n", b.CommitDate)
	}
	if b.BuildDate != "" {
		fmt.Fprintf(&s, "  built:      %s\n", b.BuildDate)
	}
	fmt.Fprintf(&s, "  go:         %s %s\n", b.GoVersion, b.Platform)
	fmt.Fprintf(&s, "  apiVersion: %s\n", b.APIVersion)
	return s.String()
}

func newVersionCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Example: "  skillsync version\n" +
			"  skillsync version -o json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printVersion(g.stdout, output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	return cmd
}

func printVersion(w io.Writer, output string) error {
	b := readBuildInfo()
	switch output {
	case "text":
		_, err := io.WriteString(w, b.String())
		return err
	case "json", "yaml":
		return writeDocument(w, output, versionJSONOf(b))
	}
	return checkOutput(output, "text", "json", "yaml")
}
