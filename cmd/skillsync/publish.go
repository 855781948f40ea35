package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/wellknown"
	"github.com/spf13/cobra"
)

func newPublishCommand(g *globals) *cobra.Command {
	var site string
	cmd := &cobra.Command{
		Use:   "publish --well-known DIR [SKILL...]",
		Short: "Write the workspace's skill directories as a static Agent Skills discovery index",
		Long: `Write DIR/.well-known/agent-skills/index.json, in the 0.2.0 form, and beside it an
artifact per skill directory the workspace declares (or those named): NAME/SKILL.md
for a skill that is its SKILL.md alone, NAME.tar.gz for one with other files. Serve
DIR at the root of any web server; another workspace then declares
index: https://HOST/.well-known/agent-skills/index.json in spec.sources and gets
the same skills, byte for byte. The same skills give the same bytes, so publishing
again changes nothing that did not change. An index in DIR that skillsync did not
publish, or a file where an artifact goes that its index did not name, is kept,
and nothing is written. Skills declared inline and those of capabilities have no
directory to publish.
Exit codes: 0 written, 2 invalid input or usage, 4 any other failure.`,
		Example: "  skillsync publish --well-known public\n" +
			"  skillsync publish --well-known public deploy review",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if site == "" {
				return usageError("publish needs --well-known DIR, the directory a web server serves")
			}
			reg, err := g.declarations()
			if err != nil {
				return err
			}
			skills, err := publishable(g, reg, args)
			if err != nil {
				return err
			}
			written, err := wellknown.Publish(g.sys, site, skills)
			if err != nil {
				return &exitError{exitFailure, err}
			}
			for _, p := range written {
				fmt.Fprintf(g.stdout, "wrote %s\n", filepath.Join(site, filepath.FromSlash(p)))
			}
			fmt.Fprintf(g.stdout, "published %d skill(s); serve %s at the root of a site, and declare index: https://HOST/%s in a workspace's spec.sources\n",
				len(skills), site, wellknown.IndexPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&site, "well-known", "", "the directory to write the site into (made if missing)")
	return cmd
}

// publishable are the skill directories of reg, named in names (all when
// none), read as they are on disk.
func publishable(g *globals, reg *registry.Registry, names []string) ([]wellknown.Published, error) {
	var dirs []registry.Skill
	var have []string
	for _, s := range reg.Skills {
		if s.Dir != "" && s.Origin == nil {
			dirs = append(dirs, s)
			have = append(have, s.Name)
		}
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			return nil, usageError("%s is no skill directory of this workspace; these are: %s", n, strings.Join(have, ", "))
		}
	}
	r, err := g.readOnly().Open(reg.Root)
	if err != nil {
		return nil, &exitError{exitFailure, err}
	}
	defer r.Close()
	var out []wellknown.Published
	for _, s := range dirs {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		skillMD, files, err := registry.ReadSkillDir(r, s.Dir)
		if err != nil {
			return nil, &exitError{exitFailure, fmt.Errorf("read %s: %w", s.Dir, err)}
		}
		out = append(out, wellknown.Published{Name: s.Name, Description: s.Spec.Description, SkillMD: skillMD, Files: files})
	}
	return out, nil
}
