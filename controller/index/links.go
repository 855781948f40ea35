package index

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// The symlinks a one-shot pass met decide its outcome beyond their own stamps:
// a workspace that links out of itself is refused (observed.State.Escapes), and
// where a link leads is found by resolving every link on its way, each of which
// can be pointed elsewhere without a change to the first. So the index stamps
// every path that resolution reads, or is not written.

// LinkWay lists every path the escape check reads to resolve the symlink link,
// as filepath.EvalSymlinks does: each element of link, then each element of what
// each link on the way holds, up to where the way ends (a directory, a file, or
// nothing). Each is inside the workspace with no symlink above it, so each has a
// stamp of its own, and a link pointed elsewhere is a new one (a new inode and
// change time). false when the way leaves the workspace (an absolute target
// elsewhere, ".." above the root, more links than the kernel follows): whatever
// lies there has no stamp in the workspace.
func LinkWay(r workspacefs.FS, realRoot, link string) ([]string, bool) {
	var read []string
	parts := strings.Split(link, "/")
	cur := "."
	for hops := 0; len(parts) > 0; {
		part := parts[0]
		parts = parts[1:]
		switch {
		case part == "" || part == ".":
			continue
		case part == "..":
			if cur == "." {
				return nil, false
			}
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, part)
		read = append(read, next)
		info, err := r.Lstat(next)
		if err != nil || (info.Mode()&fs.ModeSymlink == 0 && !info.IsDir() && len(parts) > 0) {
			return read, true // the resolution stops here: its stamp says when that changes
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := r.Readlink(next)
		if hops++; err != nil || hops > registry.MaxLinkHops {
			return nil, false
		}
		var inside bool
		if target, cur, inside = linkTarget(realRoot, target, path.Dir(next)); !inside {
			return nil, false
		}
		parts = append(strings.Split(target, "/"), parts...)
	}
	return read, true
}

// linkTarget is the target of a link in the directory dir, given in the host's
// form, as a slash-separated path to resolve and the directory to resolve it
// from: dir for a relative target, the root for an absolute one inside
// realRoot; false for an absolute one elsewhere.
func linkTarget(realRoot, target, dir string) (string, string, bool) {
	if !filepath.IsAbs(target) && filepath.VolumeName(target) == "" {
		return filepath.ToSlash(target), dir, true
	}
	rest, ok := strings.CutPrefix(target, realRoot)
	if !ok || (rest != "" && !strings.HasPrefix(rest, string(filepath.Separator))) {
		return "", "", false
	}
	return filepath.ToSlash(rest), ".", true
}
