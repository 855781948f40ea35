package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/internal/banner"
)

// The tree snapshot both the validation table and the scripts use to prove that a
// run changed nothing: every path's kind, mode, content digest, inode and mtime
// (directories too, so a temp file created and removed is noticed). The one
// exception is the cache a pass that finds nothing to do may refresh, as git
// status refreshes git's index: .skillsync/index, and with it the modification
// time of .skillsync/.

type treeEntry struct {
	Kind   string // "dir", "file", "symlink", "other"
	Perm   fs.FileMode
	Digest string // files: sha256; symlinks: target
	Ino    uint64
	MTime  time.Time
}

func readTree(dir string) (map[string]treeEntry, error) {
	entries := map[string]treeEntry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if filepath.ToSlash(rel) == state.IndexFile {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := treeEntry{Perm: info.Mode().Perm()}
		switch {
		case info.IsDir():
			e.Kind = "dir"
			if filepath.ToSlash(rel) != state.Dir {
				e.MTime = info.ModTime()
			}
		case info.Mode().IsRegular():
			e.Kind = "file"
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			e.Digest = hex.EncodeToString(sum[:])
			e.MTime = info.ModTime()
			e.Ino = inode(info)
		case info.Mode()&fs.ModeSymlink != 0:
			e.Kind = "symlink"
			e.Digest, err = os.Readlink(p)
			if err != nil {
				return err
			}
		default:
			e.Kind = "other"
		}
		entries[filepath.ToSlash(rel)] = e
		return nil
	})
	return entries, err
}

func treeDiff(before, after map[string]treeEntry) []string {
	var diffs []string
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("removed: %s (%s)", p, b.Kind))
		case a.Kind != b.Kind:
			diffs = append(diffs, fmt.Sprintf("kind: %s was %s, now %s", p, b.Kind, a.Kind))
		case a.Perm != b.Perm:
			diffs = append(diffs, fmt.Sprintf("mode: %s was %v, now %v", p, b.Perm, a.Perm))
		case a.Digest != b.Digest:
			diffs = append(diffs, fmt.Sprintf("content: %s", p))
		case a.Ino != b.Ino:
			diffs = append(diffs, fmt.Sprintf("replaced (same bytes, new inode): %s", p))
		case !a.MTime.Equal(b.MTime):
			diffs = append(diffs, fmt.Sprintf("rewritten (same bytes, mtime %s): %s", a.MTime.Format(time.RFC3339Nano), p))
		}
	}
	for p, a := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("added: %s (%s)", p, a.Kind))
		}
	}
	sort.Strings(diffs)
	return diffs
}

// diffContents names every path whose kind, mode or bytes differ between two
// trees, or that one lacks; inodes and times are not compared.
func diffContents(a, b map[string]treeEntry) string {
	strip := func(m map[string]treeEntry) map[string]treeEntry {
		out := make(map[string]treeEntry, len(m))
		for p, e := range m {
			out[p] = treeEntry{Kind: e.Kind, Perm: e.Perm, Digest: e.Digest}
		}
		return out
	}
	return diffSnapshots(strip(a), strip(b))
}

// contentsOf is treeOf root with each generated file's digest taken of its
// content without its banner, manifest and origin line, and the origin of
// each: what two workspaces that take the same skills from different places
// write alike, and where each says it came from.
func contentsOf(t *testing.T, root string) (tree map[string]treeEntry, origins map[string]string) {
	t.Helper()
	tree, origins = treeOf(t, root), map[string]string{}
	for rel, e := range tree {
		if e.Kind != "file" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		content, err := banner.Remove(data)
		if err != nil {
			continue
		}
		sum := sha256.Sum256(content)
		e.Digest = hex.EncodeToString(sum[:])
		tree[rel], origins[rel] = e, banner.Origin(data)
	}
	return tree, origins
}

// sameContents fails t where the generated files of the folder target differ
// in content between the workspaces want and got, and where got's SKILL.md
// files do not say they came from origin (a prefix).
func sameContents(t *testing.T, want, got, target, origin string) {
	t.Helper()
	wantTree, _ := contentsOf(t, filepath.Join(want, target))
	gotTree, origins := contentsOf(t, filepath.Join(got, target))
	if len(wantTree) == 0 {
		t.Fatalf("%s of %s is empty", target, want)
	}
	if d := diffContents(wantTree, gotTree); d != "" {
		t.Errorf("%s differs between %s and %s:\n%s", target, want, got, d)
	}
	for rel, o := range origins {
		if strings.HasSuffix(rel, "/SKILL.md") && !strings.HasPrefix(o, origin) {
			t.Errorf("%s/%s says it came from %q, want %s…", target, rel, o, origin)
		}
	}
}
