package registry

import (
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// InputDirs lists the directories whose entries can change what the registry
// is: the directory of config (the config file, relative to the root), those of
// the symlinks on the way to it (see LinkDirs), and the registry directories
// (see Dirs). reg may be nil.
func InputDirs(r workspacefs.FS, config string, reg *Registry) []string {
	set := map[string]bool{}
	if d, ok := NearestDir(r, path.Dir(config), true); ok {
		set[d] = true
	}
	for _, d := range LinkDirs(r, config) {
		set[d] = true
	}
	for _, d := range Dirs(r, reg) {
		set[d] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// Dirs lists the directories whose entries decide what the registry and
// body files are: every directory a registry glob can match, at every level (see
// globDirs), the directory of every registry and body file, and, for each of these
// and each of those files, the directories that hold a symlink on the way and the
// one the last link leads into (see LinkDirs). Inputs may live behind a symlink
// that stays inside the workspace (the loader allows it). reg may be nil.
func Dirs(r workspacefs.FS, reg *Registry) []string {
	if reg == nil {
		return nil
	}
	r = workspacefs.LstatOnce(r)
	var dirs, files []string
	for _, pattern := range reg.RegistryPatterns() {
		dirs = append(dirs, globDirs(r, pattern)...)
	}
	for _, pattern := range reg.SkillDirPatterns() {
		dirs = append(dirs, globDirs(r, path.Join(pattern, "SKILL.md"))...)
	}
	// A skill directory's files were read through its folders, as regular
	// files: the folders have the same ways as the files in them.
	files = append(files, reg.Files...)
	files = append(files, reg.BodyFiles()...)
	dirs = append(dirs, reg.SkillDirs()...)
	for _, f := range files {
		dirs = append(dirs, path.Dir(f))
	}
	isDir := map[string]bool{}
	for _, d := range dirs {
		isDir[d] = true
	}
	set := map[string]bool{}
	for _, w := range append(dirs, files...) {
		w = path.Clean(w)
		if isDir[w] {
			if d, ok := NearestDir(r, w, true); ok {
				set[d] = true
			}
		}
		for _, d := range LinkDirs(r, w) {
			set[d] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// MaxLinkHops bounds the symlinks followed on the way to one input, as the kernel
// bounds them (ELOOP).
const MaxLinkHops = 40

// LinkDirs lists the directories that hold a symlink on the way to rel, following
// each link inside the workspace, and, when rel is reached through a link, the
// directory it resolves into. A link swapped for another (how a Kubernetes
// ConfigMap volume updates: the kubelet renames a fresh ..data link over the old
// one) changes nothing in the directory it leads to, only in the one that holds
// it; and a registry file that is a link to a file elsewhere changes where the
// link leads, not where the link is.
func LinkDirs(r workspacefs.FS, rel string) []string {
	_, dirs, _ := WalkLinks(r, rel)
	return dirs
}

// WalkLinks follows rel through the symlinks on its way, inside the workspace: it
// returns the links met, the directories LinkDirs lists and, when a link was met,
// the path rel leads to.
func WalkLinks(r workspacefs.FS, rel string) (links, dirs []string, at string) {
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
		if hops++; err != nil || hops > MaxLinkHops || filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
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

// globDirs lists every existing directory a registry glob can match a file under,
// at every level of its directory part, plus its fixed prefix, so a new matching
// directory or file is seen when it appears. Segments match as the loader matches
// them (MatchSegment).
func globDirs(r workspacefs.FS, pattern string) []string {
	dirPattern := path.Dir(path.Clean(pattern))
	out := []string{staticPrefix(pattern)}
	listed := map[string]bool{out[0]: true}
	current := []string{"."}
	for _, seg := range strings.Split(dirPattern, "/") {
		if seg == "." {
			continue
		}
		var next []string
		for _, dir := range current {
			entries, _ := r.ReadDir(dir)
			for _, e := range entries {
				if MatchSegment(seg, e.Name()) {
					if info, err := r.Stat(path.Join(dir, e.Name())); err == nil && info.IsDir() {
						next = append(next, path.Join(dir, e.Name()))
					}
				}
			}
		}
		for _, d := range next {
			if !listed[d] {
				listed[d] = true
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

// NearestDir walks up from dir to the first existing directory inside the root.
// followLinks lets dir be a symlink to a directory inside the root; otherwise a
// symlink is never watched.
func NearestDir(r workspacefs.FS, dir string, followLinks bool) (string, bool) {
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
