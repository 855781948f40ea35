package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// watchDirs lists the workspace directories whose changes can change what a
// reconcile does: the input directories, each target directory and each skill
// directory in it. A directory that does not exist yet is covered by its nearest
// existing parent; a target or skill directory that is a symlink is never watched.
// reg may be nil when the inputs do not load.
func watchDirs(r *os.Root, reg *registry.Registry) []string {
	set := map[string]bool{}
	for _, d := range inputDirs(r, reg) {
		set[d] = true
	}
	for _, dir := range desired.TargetDirs() {
		targets := []string{dir}
		entries, _ := workspacefs.ReadDir(r, dir)
		for _, e := range entries {
			if e.IsDir() {
				targets = append(targets, path.Join(dir, e.Name()))
			}
		}
		for _, w := range targets {
			if d, ok := nearestDir(r, path.Clean(w), false); ok {
				set[d] = true
			}
		}
	}
	return sortedKeys(set)
}

// inputDirs lists the directories whose entries can change what the inputs are:
// the config's directory, .skillsync/, every directory a registry glob can match
// (see globDirs), the directory of every registry and body file, and every directory
// that holds a symlink on the way to one of these (see linkDirs). Inputs may live
// behind a symlink that stays inside the workspace (the loader allows it).
func inputDirs(r *os.Root, reg *registry.Registry) []string {
	inputs := []string{".", StateDir}
	if reg != nil {
		for _, pattern := range reg.Config.Spec.Registry {
			inputs = append(inputs, globDirs(r, pattern)...)
		}
		for _, f := range reg.Files {
			inputs = append(inputs, path.Dir(f))
		}
		for _, s := range reg.Skills {
			if s.BodyPath != "" {
				inputs = append(inputs, path.Dir(s.BodyPath))
			}
		}
	}
	set := map[string]bool{}
	for _, w := range inputs {
		w = path.Clean(w)
		if d, ok := nearestDir(r, w, true); ok {
			set[d] = true
		}
		for _, d := range linkDirs(r, w) {
			set[d] = true
		}
	}
	return sortedKeys(set)
}

// maxLinkHops bounds the symlinks followed on the way to one input, as the kernel
// bounds them (ELOOP).
const maxLinkHops = 40

// linkDirs lists the directories that hold a symlink on the way to rel, following
// each link inside the workspace. A link swapped for another (how a Kubernetes
// ConfigMap volume updates: the kubelet renames a fresh ..data link over the old
// one) changes nothing in the directory it leads to, only in the one that holds it.
func linkDirs(r *os.Root, rel string) []string {
	var out []string
	parts := strings.Split(rel, "/")
	cur := "."
	for hops := 0; len(parts) > 0; {
		part := parts[0]
		parts = parts[1:]
		if part == "." || part == "" {
			continue
		}
		next := path.Join(cur, part)
		info, err := r.Lstat(next)
		if err != nil {
			break
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := r.Readlink(next)
		if hops++; err != nil || hops > maxLinkHops || path.IsAbs(target) {
			break
		}
		out = append(out, cur)
		resolved := path.Join(cur, target)
		if resolved == ".." || strings.HasPrefix(resolved, "../") {
			break
		}
		parts = append(strings.Split(resolved, "/"), parts...)
		cur = "."
	}
	return out
}

// globDirs lists every existing directory the directory part of a registry glob can
// match, plus its fixed prefix, so a new matching directory is seen when it appears.
func globDirs(r *os.Root, pattern string) []string {
	dirPattern := path.Dir(path.Clean(pattern))
	out := []string{staticPrefix(pattern)}
	current := []string{"."}
	for _, seg := range strings.Split(dirPattern, "/") {
		if seg == "." {
			continue
		}
		var next []string
		for _, dir := range current {
			entries, _ := workspacefs.ReadDir(r, dir)
			for _, e := range entries {
				if ok, _ := path.Match(seg, e.Name()); ok {
					if info, err := r.Stat(path.Join(dir, e.Name())); err == nil && info.IsDir() {
						next = append(next, path.Join(dir, e.Name()))
					}
				}
			}
		}
		current = next
	}
	return append(out, current...)
}

// staticPrefix is the directory part of a glob before its first pattern character.
func staticPrefix(pattern string) string {
	dir := path.Dir(path.Clean(pattern))
	for strings.ContainsAny(dir, `*?[\`) {
		dir = path.Dir(dir)
	}
	return dir
}

// nearestDir walks up from dir to the first existing directory inside the root.
// followLinks lets dir be a symlink to a directory inside the root; otherwise a
// symlink is never watched.
func nearestDir(r *os.Root, dir string, followLinks bool) (string, bool) {
	if dir == ".." || strings.HasPrefix(dir, "../") || path.IsAbs(dir) {
		return "", false
	}
	for {
		info, err := r.Lstat(dir)
		if err == nil && info.Mode()&fs.ModeSymlink != 0 && followLinks {
			info, err = r.Stat(dir) // fails for a link that leaves the root
		}
		if err == nil && info.IsDir() {
			return dir, true
		}
		if err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return "", false
		}
		if dir == "." {
			return "", false
		}
		dir = path.Dir(dir)
	}
}

// fingerprint summarises the entries of dirs (names, types, sizes, mtimes), for
// --poll: any change to a watched file or directory changes it.
func fingerprint(r *os.Root, dirs []string) string {
	h := sha256.New()
	for _, dir := range dirs {
		entries, err := workspacefs.ReadDir(r, dir)
		fmt.Fprintf(h, "%s\x00%v\x00", dir, err)
		for _, e := range entries {
			info, err := e.Info()
			if err != nil {
				continue
			}
			fmt.Fprintf(h, "%s\x00%v\x00%d\x00%d\x00", e.Name(), info.Mode(), info.Size(), info.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
