package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/authoring/adopt"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/printable"
	"github.com/skillsync/skillsync/observed"
)

func newAdoptCommand(g *globals) *cobra.Command {
	var yes, bodyFile bool
	cmd := &cobra.Command{
		Use:   "adopt PATH...",
		Short: "Turn skills people wrote into registry Skill documents that skillsync owns and writes into every target",
		Long: "adopt reads each hand-written SKILL.md, writes a registry Skill document declaring it (its\n" +
			"body inline, or with --body-file in a file beside the document; a skill with files beside its\n" +
			"SKILL.md whole, as a skill directory beside the document), and removes the hand-written\n" +
			"files, for the next reconcile to generate the skill in every enabled target. It shows the plan\n" +
			"first and needs a yes, on the terminal or with --yes. Every hand-written copy of a name must\n" +
			"be given, and all must declare the same skill.",
		Example: "  skillsync adopt .claude/skills/review-pr\n" +
			"  skillsync adopt --yes --body-file .claude/skills/review-pr/SKILL.md",
		Args: someArgs("the hand-written skills to adopt, as directories or SKILL.md files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, _, err := planned(g)
			if err != nil {
				return err
			}
			root := out.Registry.Root
			skills, err := readHandWritten(g, root, args, out.HandWritten)
			if err != nil {
				return &exitError{exitInvalid, err}
			}
			files, err := adoptionFiles(out.Registry.RegistryPatterns(), skills, bodyFile)
			if err != nil {
				return &exitError{exitInvalid, err}
			}
			printAdoption(g.stdout, skills, files)
			if !yes && !confirmed(g, cmd.InOrStdin(), "adopt") {
				fmt.Fprintln(g.stdout, "nothing changed")
				return nil
			}
			err = adopt.Apply(g.sys, root, out.Registry.ConfigFile, files, skills)
			var notLoaded *adopt.NotLoadedError
			var ps registry.Problems
			switch {
			case err == nil:
			case errors.Is(err, apply.ErrExists), errors.Is(err, apply.ErrLeadsOut):
				return &exitError{exitInvalid, err}
			case errors.As(err, &notLoaded) && errors.As(notLoaded.Err, &ps):
				there := "the files it would write are not there"
				if notLoaded.Undo != nil {
					there = "the files it wrote are taken back but for those named after the problems"
				}
				printProblemsUnder(g.stderr, fmt.Sprintf("skillsync: the registry would not load with the adopted skills, so nothing was adopted; %s (%d problem(s)):", there, len(ps)), ps)
				if notLoaded.Undo != nil {
					fmt.Fprintf(g.stderr, "skillsync: %v\n", notLoaded.Undo)
				}
				return invalidInput(ps)
			default:
				return inputError(g.stderr, err)
			}
			fmt.Fprintf(g.stdout, "adopted; next: %s reconcile --once\n", g.invocation())
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "adopt without asking")
	cmd.Flags().BoolVar(&bodyFile, "body-file", false, "keep each body in a Markdown file beside the registry document")
	return cmd
}

// readHandWritten reads the skills at paths (a SKILL.md or its directory,
// relative to the current directory or absolute), one per name: copies of a
// name must all be given and agree.
func readHandWritten(g *globals, root string, paths, handWritten []string) ([]adopt.Skill, error) {
	ws, err := g.readOnly().Open(root)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	var given []string
	var skills []adopt.Skill
	for _, arg := range paths {
		rel, err := workspacePath(root, arg)
		if err != nil {
			return nil, err
		}
		if path.Base(rel) != observed.SkillFile {
			rel = path.Join(rel, observed.SkillFile)
		}
		if slices.Contains(given, rel) {
			continue
		}
		given = append(given, rel)
		if !slices.Contains(handWritten, rel) {
			return nil, fmt.Errorf("%s is no skill a person wrote in a target directory (see skillsync list)", printable.Name(rel))
		}
		data, err := ws.ReadRegular(rel, observed.MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		sk, err := adopt.Parse(rel, data)
		if err != nil {
			return nil, err
		}
		if _, sk.Files, err = registry.ReadSkillDir(ws, path.Dir(rel)); err != nil {
			return nil, fmt.Errorf("%w; adopt takes a skill directory whole, and nothing was adopted", err)
		}
		skills = append(skills, sk)
	}
	return adopt.Group(skills, handWritten)
}

// workspacePath is arg relative to the workspace root, slash-separated.
func workspacePath(root, arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the workspace %s", arg, root)
	}
	return filepath.ToSlash(rel), nil
}

// adoptionFiles are the files adopt creates for skills.
func adoptionFiles(patterns []string, skills []adopt.Skill, bodyFile bool) ([]apply.NewFile, error) {
	planned, err := adopt.Files(patterns, skills, bodyFile)
	if err != nil {
		return nil, err
	}
	files := make([]apply.NewFile, len(planned))
	for i, f := range planned {
		files[i] = apply.NewFile(f)
	}
	return files, nil
}

func printAdoption(w io.Writer, skills []adopt.Skill, files []apply.NewFile) {
	for _, f := range files {
		fmt.Fprintf(w, "create  %s\n", f.Path)
	}
	for _, sk := range skills {
		fmt.Fprintf(w, "remove  %s  (yours; the next reconcile writes %s, generated, in every enabled target)\n", sk.Path, sk.Name)
		for _, f := range sk.Files {
			fmt.Fprintf(w, "remove  %s  (yours; written again beside it)\n", path.Join(path.Dir(sk.Path), f.Path))
		}
	}
}

// confirmed asks on stderr whether to do what, and reads the answer from in.
func confirmed(g *globals, in io.Reader, what string) bool {
	fmt.Fprintf(g.stderr, "%s? [y/N] ", what)
	answer, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, fs.ErrClosed) {
		return false
	}
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes"
}
