package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/authoring/update"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/printable"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/sources/git"
	"github.com/skillsync/skillsync/sources/oci"
	"github.com/skillsync/skillsync/sources/wellknown"
)

// sourceReader reads the sources through the user's cache directory, shared
// by every workspace of the user. Without one (no HOME) there is no cache, and
// reading a source says so: a shared temp directory would let another user
// plant a repository, and its configuration, for git to read.
func (g *globals) sourceReader() *transports {
	if g.sources == nil {
		dir, err := os.UserCacheDir()
		if err == nil {
			dir = filepath.Join(dir, "skillsync")
		}
		g.sources = &transports{
			git:   git.NewReader(git.Cache{Dir: subdir(dir, "git"), Offline: g.offline}),
			index: wellknown.NewReader(wellknown.Cache{Dir: subdir(dir, "wellknown"), Offline: g.offline}),
			oci:   oci.NewReader(oci.Cache{Dir: subdir(dir, "oci"), Offline: g.offline}),
		}
	}
	return g.sources
}

func subdir(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// transports hands each source to the reader of its kind: git, a discovery
// index or an OCI artifact.
type transports struct {
	git   *git.Reader
	index *wellknown.Reader
	oci   *oci.Reader
}

// A load through transports checks the organisation's policy.
var _ registry.PolicedReader = (*transports)(nil)

// Policy is the organisation's policy, read anew for every load through t
// (so that a watcher follows it), which checks each source against it before
// reading any.
func (t *transports) Policy() (*registry.Policy, error) { return orgPolicy() }

// transport is what reads one kind of source.
type transport interface {
	ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error)
	Resolve(src registry.RemoteSource) (registry.LockedSource, error)
}

func (t *transports) of(src registry.RemoteSource) transport {
	switch {
	case src.Index != "":
		return t.index
	case src.OCI != "":
		return t.oci
	}
	return t.git
}

func (t *transports) ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error) {
	return t.of(src).ReadSource(src, at)
}

func (t *transports) Resolve(src registry.RemoteSource) (registry.LockedSource, error) {
	return t.of(src).Resolve(src)
}

// Tags are a git repository's or an OCI repository's tags; an index has none.
func (t *transports) Tags(src registry.RemoteSource) ([]string, error) {
	switch {
	case src.Index != "":
		return nil, nil
	case src.OCI != "":
		return t.oci.Tags(src)
	}
	return t.git.Tags(src)
}

func newUpdateCommand(g *globals) *cobra.Command {
	var yes, diff bool
	cmd := &cobra.Command{
		Use:   "update [SOURCE...]",
		Short: "Resolve the sources anew and write skillsync.lock, after showing what changes",
		Long: `Resolve the ref of each source skillsync.yaml declares (or of the sources named) to
the commit it names now, read the skills it holds there, and show, per source, the
skills added, removed and changed against skillsync.lock. The lock is written only
when confirmed: with --yes, or a "y" on standard input. The skills follow at the
next reconcile; every command but update reads the sources only as the lock pins
them.
Exit codes: 0 the lock is written or already up to date, 1 changes were shown and
not written, 2 invalid input, 4 any other failure (a source that cannot be reached).`,
		Example: "  skillsync update          show what moving every source would change, then ask\n" +
			"  skillsync update --diff   the same, with the diff of each file of the skills that change\n" +
			"  skillsync update --yes    write the lock without asking\n" +
			"  skillsync update team     move only the source called team",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.offline {
				return usageError("update resolves refs on the network; --offline cannot go with it")
			}
			reg, err := g.declarations()
			if err != nil {
				return err
			}
			lockFile := reg.InConfigDir(registry.LockName)
			old, lock, err := update.ReadLock(g.readOnly(), reg.Root, lockFile)
			if len(reg.Config.Spec.Sources) == 0 && len(args) == 0 && (old == nil || err == nil && len(lock.Sources) == 0) {
				// With no source declared there is work only for a lock that
				// pins some, or cannot be read: it is written anew, pinning
				// none, as when one source of several is dropped.
				fmt.Fprintf(g.stdout, "%s declares no sources; nothing to update\n", reg.ConfigFile)
				return nil
			}
			if err := checkSourceNames(reg, args); err != nil {
				return err
			}
			if err := g.checkTrust(reg); err != nil {
				return err
			}
			var problems registry.Problems
			switch {
			case errors.As(err, &problems) && len(args) > 0:
				// Moving some sources keeps the others as the lock pins them,
				// which it cannot say.
				printProblemsUnder(g.stderr, fmt.Sprintf("skillsync: %s cannot be read, so the sources not named cannot be kept as it pins them; run skillsync update without names to write it anew:", lockFile), problems)
				return invalidInput(problems)
			case errors.As(err, &problems):
				fmt.Fprintf(g.stderr, "skillsync: %s cannot be read as a lock (%s); what this update resolves replaces it, once you say so\n", lockFile, problems[0])
			case err != nil:
				return &exitError{exitFailure, err}
			}
			next, changes, err := update.Resolve(reg, lock, args, g.sourceReader())
			if errors.As(err, &problems) {
				return inputError(g.stderr, err)
			}
			if err != nil {
				return &exitError{exitFailure, err}
			}
			printChanges(g.stdout, changes)
			if diff {
				if err := printFileChanges(g, reg, changes, lock, next); err != nil {
					return &exitError{exitFailure, err}
				}
			}
			if old != nil && string(registry.FormatLock(next)) == string(old) {
				fmt.Fprintf(g.stdout, "%s is up to date\n", lockFile)
				return nil
			}
			if !yes && !confirmed(g, cmd.InOrStdin(), "Write "+lockFile) {
				fmt.Fprintf(g.stdout, "%s not written: pass --yes, or answer y, to write it\n", lockFile)
				return &exitError{code: exitChanges}
			}
			if err := update.WriteLock(g.sys, reg.Root, g.config(), lockFile, old, next); err != nil {
				return &exitError{exitFailure, err}
			}
			fmt.Fprintf(g.stdout, "wrote %s; next: commit it, and run skillsync reconcile --once (a running watcher applies it)\n", lockFile)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "write the lock without asking")
	cmd.Flags().BoolVar(&diff, "diff", false, "show the unified diff of every file of the skills that change")
	return cmd
}

// declarations loads the workspace's config and registry, its sources left
// unread: what update, outdated and publish start from. Its error is the
// command's.
func (g *globals) declarations() (*registry.Registry, error) {
	root, err := g.root()
	if err != nil {
		return nil, err
	}
	reg, err := registry.LoadConfig(g.readOnly(), root, g.config(), nil)
	if err != nil {
		return nil, inputError(g.stderr, err)
	}
	return reg, nil
}

// checkTrust refuses, before any source is read, the sources the
// organisation's policy or skillsync.yaml's spec.trust does not allow.
func (g *globals) checkTrust(reg *registry.Registry) error {
	policy, err := orgPolicy()
	if err != nil {
		return inputError(g.stderr, err)
	}
	if ps := reg.Untrusted(policy); len(ps) > 0 {
		return inputError(g.stderr, ps)
	}
	fsys, err := g.readOnly().Open(reg.Root)
	if err != nil {
		return &exitError{exitFailure, err}
	}
	defer fsys.Close()
	read := func(file string) ([]byte, error) {
		data, err := fsys.ReadFile(file, 1<<20)
		return data, workspacefs.Cause(err)
	}
	if ps := reg.ApplyTrust(policy, read); len(ps) > 0 {
		return inputError(g.stderr, ps)
	}
	return nil
}

// checkSourceNames refuses a name of names that reg declares no source by.
func checkSourceNames(reg *registry.Registry, names []string) error {
	var declared []string
	for _, s := range reg.Config.Spec.Sources {
		declared = append(declared, s.Name)
	}
	for _, n := range names {
		switch {
		case slices.Contains(declared, n):
		case len(declared) == 0:
			return usageError("%s declares no sources, so none named %s", reg.ConfigFile, printable.Name(n))
		default:
			return usageError("%s declares no source %s; its sources: %s", reg.ConfigFile, printable.Name(n), strings.Join(declared, ", "))
		}
	}
	return nil
}

// printFileChanges prints the diff of every file the new lock changes, source
// by source, each file named source:skill/file.
func printFileChanges(g *globals, reg *registry.Registry, changes []update.Change, old, next registry.Lock) error {
	for _, c := range changes {
		before, _ := old.Named(c.Source)
		after, _ := next.Named(c.Source)
		var signers []registry.RequiredSigner
		for _, src := range reg.Config.Spec.Sources {
			if src.Name == c.Source {
				signers = src.Signers
			}
		}
		files, err := update.FileChanges(c, before, after, signers, g.sourceReader())
		if err != nil {
			return err
		}
		for _, f := range files {
			name := c.Source + ":" + f.Path
			if binary(f.Old) || binary(f.New) {
				fmt.Fprintf(g.stdout, "Binary files %s and %s differ\n", diffLabel("a/", name, f.Old), diffLabel("b/", name, f.New))
				continue
			}
			fmt.Fprint(g.stdout, unifiedDiff(name, f.Old, f.New))
		}
	}
	return nil
}

// printChanges says, per source, what the new lock changes.
func printChanges(w io.Writer, changes []update.Change) {
	for _, c := range changes {
		switch {
		case c.New == "":
			fmt.Fprintf(w, "source %s: no longer declared, dropped from the lock\n", c.Source)
		case c.Old == "":
			fmt.Fprintf(w, "source %s: %s (%s)\n", c.Source, short(c.New), pinnedBy(c.Ref, c.Index))
		case c.Held != "":
			fmt.Fprintf(w, "source %s: %s (%s), held: %s\n", c.Source, short(c.New), pinnedBy(c.Ref, c.Index), c.Held)
			continue
		case c.Empty():
			fmt.Fprintf(w, "source %s: %s (%s), unchanged\n", c.Source, short(c.New), pinnedBy(c.Ref, c.Index))
			continue
		default:
			fmt.Fprintf(w, "source %s: %s -> %s (%s)\n", c.Source, short(c.Old), short(c.New), pinnedBy(c.Ref, c.Index))
		}
		for _, s := range c.Added {
			fmt.Fprintf(w, "  + %s\n", s)
		}
		for _, s := range c.Changed {
			fmt.Fprintf(w, "  ~ %s\n", s)
		}
		for _, s := range c.Removed {
			fmt.Fprintf(w, "  - %s\n", s)
		}
		if c.Kept > 0 {
			fmt.Fprintf(w, "  %d skill(s) unchanged\n", c.Kept)
		}
	}
}

// short is a commit or a digest as people read one: its first 12 digits.
func short(pin string) string {
	pin = strings.TrimPrefix(pin, "sha256:")
	return pin[:min(12, len(pin))]
}

// pinnedBy says what a source follows: its ref, its remote's default branch,
// or, for an index, the index.
func pinnedBy(ref string, index bool) string {
	switch {
	case index:
		return "index"
	case ref == "":
		return "the default branch"
	}
	return ref
}
