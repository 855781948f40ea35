package main

import (
	"errors"
	"path/filepath"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/authoring/update"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/desired/sbom"
)

func newSBOMCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "sbom",
		Short: "Print the workspace's bill of materials: its sources, skills and capabilities, as CycloneDX",
		Long: `Print, as a CycloneDX 1.6 JSON document, what the workspace takes in: each source as
skillsync.lock pins it (a library, versioned by its commit, manifest digest or
artifacts, with its skills and registry files nested, each with its SHA-256), and
the workspace's own skills and capabilities, each with where it is declared. The
same inputs print the same document: it carries no time and no serial number.
The sources are read as for reconcile, from the cache when it holds them.
Exit codes: 0 printed, 2 invalid input, 4 any other failure (a source that cannot
be read).`,
		Example: "  skillsync sbom > skillsync.cdx.json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.root()
			if err != nil {
				return err
			}
			reg, err := registry.LoadReading(g.readOnly(), root, g.config(), nil, g.sourceReader())
			if err != nil {
				return inputError(g.stderr, err)
			}
			_, lock, err := update.ReadLock(g.readOnly(), reg.Root, reg.InConfigDir(registry.LockName))
			var problems registry.Problems
			if errors.As(err, &problems) {
				return inputError(g.stderr, err)
			}
			if err != nil {
				return &exitError{exitFailure, err}
			}
			doc := sbom.Of(reg, lock, filepath.Base(reg.Root), readBuildInfo().Version)
			enc := cdx.NewBOMEncoder(g.stdout, cdx.BOMFileFormatJSON)
			enc.SetPretty(true)
			if err := enc.EncodeVersion(doc, sbom.SpecVersion); err != nil {
				return &exitError{exitFailure, err}
			}
			return nil
		},
	}
}
