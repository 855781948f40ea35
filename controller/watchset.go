package controller

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// watchDirs lists the workspace directories whose changes can change what a
// reconcile does: the input directories, each target directory and each skill
// directory in it. A directory that does not exist yet is covered by its nearest
// existing parent; a target or skill directory that is a symlink is never watched.
// reg may be nil when the inputs do not load.
func watchDirs(r workspacefs.FS, reg *registry.Registry) []string {
	set := map[string]bool{}
	for _, d := range inputDirs(r, reg) {
		set[d] = true
	}
	for _, t := range clients.Targets {
		dir := t.Dir
		nearest, ok := nearestDir(r, dir, false)
		if ok {
			set[nearest] = true
		}
		entries, _ := r.ReadDir(dir)
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			// A directory listed in a target that is a directory itself is one:
			// the entry's type says so without a stat for each of thousands.
			w := path.Join(dir, e.Name())
			if nearest == dir {
				set[w] = true
			} else if d, ok := nearestDir(r, w, false); ok {
				set[d] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// inputDirs lists the directories whose entries can change what the inputs are:
// the config's directory, .skillsync/ (the profile), those of the symlinks on the
// way to the config (see linkDirs), and the registry directories (see
// registryDirs).
func inputDirs(r workspacefs.FS, reg *registry.Registry) []string {
	set := map[string]bool{}
	for _, w := range []string{".", state.Dir} {
		if d, ok := nearestDir(r, w, true); ok {
			set[d] = true
		}
	}
	for _, d := range linkDirs(r, registry.ConfigName) {
		set[d] = true
	}
	for _, d := range registryDirs(r, reg) {
		set[d] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// registryDirs lists the directories whose entries decide what the registry and
// body files are: every directory a registry glob can match, at every level (see
// globDirs), the directory of every registry and body file, and, for each of these
// and each of those files, the directories that hold a symlink on the way and the
// one the last link leads into (see linkDirs). Inputs may live behind a symlink
// that stays inside the workspace (the loader allows it). reg may be nil.
func registryDirs(r workspacefs.FS, reg *registry.Registry) []string {
	if reg == nil {
		return nil
	}
	var dirs, files []string
	for _, pattern := range reg.Config.Spec.Registry {
		dirs = append(dirs, globDirs(r, pattern)...)
	}
	files = append(files, reg.Files...)
	files = append(files, reg.BodyFiles()...)
	for _, f := range files {
		dirs = append(dirs, path.Dir(f))
	}
	set := map[string]bool{}
	for _, w := range append(dirs, files...) {
		w = path.Clean(w)
		if slices.Contains(dirs, w) {
			if d, ok := nearestDir(r, w, true); ok {
				set[d] = true
			}
		}
		for _, d := range linkDirs(r, w) {
			set[d] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// maxLinkHops bounds the symlinks followed on the way to one input, as the kernel
// bounds them (ELOOP).
const maxLinkHops = 40

// linkDirs lists the directories that hold a symlink on the way to rel, following
// each link inside the workspace, and, when rel is reached through a link, the
// directory it resolves into. A link swapped for another (how a Kubernetes
// ConfigMap volume updates: the kubelet renames a fresh ..data link over the old
// one) changes nothing in the directory it leads to, only in the one that holds
// it; and a registry file that is a link to a file elsewhere changes where the
// link leads, not where the link is.
func linkDirs(r workspacefs.FS, rel string) []string {
	_, dirs, _ := walkLinks(r, rel)
	return dirs
}

// walkLinks follows rel through the symlinks on its way, inside the workspace: it
// returns the links met, the directories linkDirs lists and, when a link was met,
// the path rel leads to.
func walkLinks(r workspacefs.FS, rel string) (links, dirs []string, at string) {
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
			return links, dirs, ""
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := r.Readlink(next)
		if hops++; err != nil || hops > maxLinkHops || filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
			return links, dirs, ""
		}
		// A link target is in the host's form: backslashes on Windows.
		if target = filepath.ToSlash(target); path.IsAbs(target) {
			return links, dirs, ""
		}
		links, dirs = append(links, next), append(dirs, cur)
		resolved := path.Join(cur, target)
		if resolved == ".." || strings.HasPrefix(resolved, "../") {
			return links, dirs, ""
		}
		parts = append(strings.Split(resolved, "/"), parts...)
		cur = "."
	}
	if len(links) == 0 {
		return nil, nil, ""
	}
	at = cur
	if info, err := r.Lstat(cur); err == nil && !info.IsDir() {
		cur = path.Dir(cur)
	}
	return links, append(dirs, cur), at
}

// inputPaths tells which paths of the watched directories are inputs, or could
// become one: an event for any other (a log file written beside skillsync.yaml,
// .git beside a registry directory) changes nothing a reconcile reads.
type inputPaths struct {
	any      bool            // the inputs did not load: every path may be one
	paths    map[string]bool // input files, the directories above them, the links on their way
	files    map[string]bool // the input files themselves
	patterns []string        // registry globs: a new match, or a directory one could appear under
}

// inputsOf lists the input paths of a registry; nil means it did not load.
func inputsOf(r workspacefs.FS, reg *registry.Registry) inputPaths {
	if reg == nil {
		return inputPaths{any: true}
	}
	in := inputPaths{paths: map[string]bool{}, files: map[string]bool{}, patterns: reg.Config.Spec.Registry}
	files := append([]string{registry.ConfigName, desired.ProfileFile}, reg.Files...)
	files = append(files, reg.BodyFiles()...)
	for _, f := range files {
		in.files[f] = true
		for p := f; p != "." && p != "/"; p = path.Dir(p) {
			in.paths[p] = true
		}
		links, _, at := walkLinks(r, f)
		for _, l := range links {
			in.paths[l] = true
		}
		// The events of a file reached through a link name where it leads.
		for p := at; at != "" && p != "." && p != "/"; p = path.Dir(p) {
			in.paths[p] = true
		}
	}
	return in
}

// moves tells whether an event for rel can move the directories that hold the
// inputs: any but a change of content of an input file that stays a file.
func (in inputPaths) moves(r workspacefs.FS, rel string, removed bool) bool {
	if in.any || removed || !in.files[rel] {
		return true
	}
	info, err := r.Lstat(rel)
	return err != nil || !info.Mode().IsRegular()
}

// holds tells whether rel is an input path.
func (in inputPaths) holds(rel string) bool {
	if in.any || in.paths[rel] {
		return true
	}
	for _, p := range in.patterns {
		if whole, onTheWay := registry.MatchPattern(p, rel); whole || onTheWay {
			return true
		}
	}
	return false
}

// outputPath tells whether rel is where skillsync writes, or on the way there: a
// target directory and what is in it, the directories above one, .skillsync/ and
// the record in it (which skillsync accept rewrites).
func outputPath(rel string) bool {
	for _, t := range clients.Targets {
		if dir := t.Dir; rel == dir || strings.HasPrefix(rel, dir+"/") || strings.HasPrefix(dir, rel+"/") {
			return true
		}
	}
	return rel == state.Dir || rel == state.AppliedFile
}

// globDirs lists every existing directory a registry glob can match a file under,
// at every level of its directory part, plus its fixed prefix, so a new matching
// directory or file is seen when it appears. Segments match as the loader matches
// them (registry.MatchSegment).
func globDirs(r workspacefs.FS, pattern string) []string {
	dirPattern := path.Dir(path.Clean(pattern))
	out := []string{staticPrefix(pattern)}
	current := []string{"."}
	for _, seg := range strings.Split(dirPattern, "/") {
		if seg == "." {
			continue
		}
		var next []string
		for _, dir := range current {
			entries, _ := r.ReadDir(dir)
			for _, e := range entries {
				if registry.MatchSegment(seg, e.Name()) {
					if info, err := r.Stat(path.Join(dir, e.Name())); err == nil && info.IsDir() {
						next = append(next, path.Join(dir, e.Name()))
					}
				}
			}
		}
		for _, d := range next {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
		current = next
	}
	return out
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
func nearestDir(r workspacefs.FS, dir string, followLinks bool) (string, bool) {
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

// linkedInputs lists the input files of reg with more than one hard link: a
// write through another name, in a directory no one watches, sends no event for
// the name the registry reads.
func linkedInputs(r workspacefs.FS, reg *registry.Registry) []string {
	files := append([]string{registry.ConfigName, desired.ProfileFile}, reg.Files...)
	var out []string
	for _, f := range append(files, reg.BodyFiles()...) {
		if n, err := r.Links(f); err == nil && n > 1 {
			out = append(out, f)
		}
	}
	return out
}

// fileState summarises what the file rel leads to (its type, size, times and
// identity), for polling: a write through any of its names changes it.
func fileState(r workspacefs.FS, rel string) string {
	info, err := r.Stat(rel)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%v %d %d %+v", info.Mode(), info.Size(), info.ModTime().UnixNano(), workspacefs.StampOf(info))
}

// listing summarises each entry of dir (its type, size and mtime) by name, for
// polling: any change to a file or directory in it changes its entry. A listing
// that fails is one entry, under the empty name, holding the error.
func listing(r workspacefs.FS, dir string) map[string]string {
	entries, err := r.ReadDir(dir)
	if err != nil {
		return map[string]string{"": err.Error()}
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		out[e.Name()] = fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
	}
	return out
}

// changedEntries are the names whose entries differ between two listings of one
// directory; the empty name when either could not be read.
func changedEntries(before, now map[string]string) []string {
	var out []string
	for name, was := range before {
		if is, ok := now[name]; !ok || is != was {
			out = append(out, name)
		}
	}
	for name := range now {
		if _, ok := before[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}
