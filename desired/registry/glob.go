package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// glob expands a registry pattern one path segment at a time, so no directory is
// listed before it is known to be inside the workspace. Every match of the whole
// pattern must be a readable regular file: a directory, a FIFO, a socket, a dangling
// symlink or a directory that cannot be listed on the way is a problem, never a
// match quietly skipped, since a skipped file reads as a smaller registry.
func (l *loader) glob(pattern string, pos Position) []string {
	clean, p := l.resolvePattern(pattern, pos)
	if p != nil {
		l.add(*p)
		return nil
	}
	current := []string{"."}
	segments := strings.Split(clean, "/")
	for i, seg := range segments {
		last := i == len(segments)-1
		var next []string
		for _, dir := range current {
			for _, cand := range l.expand(dir, seg, pattern, pos) {
				if l.match(cand, pattern, pos, last, !strings.ContainsAny(seg, `*?[\`)) {
					next = append(next, cand)
				}
			}
		}
		current = next
	}
	sort.Strings(current)
	return current
}

func (l *loader) resolvePattern(pattern string, pos Position) (string, *Problem) {
	escape := &Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q reaches outside the workspace", pattern), Hint: "globs are relative to " + ConfigName + " and stay inside its directory"}
	if pattern == "" || filepath.IsAbs(pattern) || strings.HasPrefix(pattern, "/") || strings.ContainsRune(pattern, 0) {
		return "", escape
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return "", &Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q is malformed: %v", pattern, err)}
	}
	clean := path.Clean(path.Join(path.Dir(l.config), filepath.ToSlash(pattern)))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", escape
	}
	return clean, nil
}

// expand lists the entries of dir that seg matches; a segment without pattern
// characters is taken as written.
func (l *loader) expand(dir, seg, pattern string, pos Position) []string {
	if !strings.ContainsAny(seg, `*?[\`) {
		return []string{path.Join(dir, seg)}
	}
	entries, err := l.r.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil && l.failed(dir, err):
		return nil
	case err != nil:
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q cannot list %s: %v", pattern, dir, workspacefs.Cause(err)),
			Hint: "make the directory readable, or narrow the glob so it does not reach it"})
		return nil
	}
	var out []string
	for _, e := range entries {
		if MatchSegment(seg, e.Name()) {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

// MatchSegment tells whether name matches one segment of a registry glob: as
// path.Match does, except that a name starting with "." is matched only by a
// segment that starts with "." too (editors' swap and lock files start with one).
// A segment without pattern characters matches only itself.
func MatchSegment(seg, name string) bool {
	if !strings.ContainsAny(seg, `*?[\`) {
		return seg == name
	}
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
		return false
	}
	ok, _ := path.Match(seg, name)
	return ok
}

// MatchPattern tells whether the slash-separated path rel matches the registry
// glob pattern as the loader matches it: whole when all of it does, onTheWay when
// rel is a directory a match could be found under.
func MatchPattern(pattern, rel string) (whole, onTheWay bool) {
	segs := strings.Split(path.Clean(pattern), "/")
	parts := strings.Split(path.Clean(rel), "/")
	if len(parts) > len(segs) {
		return false, false
	}
	for i, part := range parts {
		if !MatchSegment(segs[i], part) {
			return false, false
		}
	}
	return len(parts) == len(segs), len(parts) < len(segs)
}

// match tells whether rel, which matched a segment of pattern, goes on: a directory
// for a segment before the last, a readable regular file for the last. Anything else
// the last segment matched is a problem; before the last, only what cannot be told
// from a directory is. literal says the segment named rel without a pattern.
func (l *loader) match(rel, pattern string, pos Position, last, literal bool) bool {
	real, err := l.r.EvalSymlinks(rel)
	if err != nil {
		return l.unresolved(rel, pattern, pos, err)
	}
	if !l.inside(real) {
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, which leads outside the workspace", pattern, rel),
			Hint: "registry files and directories must be inside the workspace, symlinks included"})
		return false
	}
	if out := l.outputDir(real); out != "" {
		// A directory a pattern matched on the way is passed over: a glob like
		// .*/*.yaml must not turn invalid the moment skillsync creates .skillsync/.
		// A file there, or a directory the glob names, is an error.
		if last || literal {
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, inside %s, where skillsync writes", pattern, rel, out),
				Hint: "keep the registry out of the skill directories and " + StateDir + "/"})
		}
		return false
	}
	// real is inside the root and has no symlink left on it.
	resolved, err := filepath.Rel(l.root, real)
	if err != nil {
		return l.unresolved(rel, pattern, pos, err)
	}
	info, err := l.r.Stat(filepath.ToSlash(resolved))
	switch {
	case err != nil:
		return l.unresolved(rel, pattern, pos, err)
	case !last:
		return info.IsDir()
	case info.Mode().IsRegular():
		return true
	}
	l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, which is %s, not a regular file", pattern, rel, kindOf(info.Mode())),
		Hint: "a registry glob matches YAML or JSON files only; move it away or narrow the glob"})
	return false
}

// unresolved judges a match whose path cannot be followed: nothing there is no
// match, a symlink to nothing or a path that cannot be read is a problem.
func (l *loader) unresolved(rel, pattern string, pos Position, err error) bool {
	if l.failed(rel, err) {
		return false
	}
	if errors.Is(err, fs.ErrNotExist) {
		info, lerr := l.r.Lstat(rel)
		if lerr != nil || info.Mode()&fs.ModeSymlink == 0 {
			return false // nothing there
		}
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, a symlink to nothing", pattern, rel),
			Hint: "point the link at a file inside the workspace, or remove it"})
		return false
	}
	l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, which cannot be read: %v", pattern, rel, unwrapPath(err)),
		Hint: "make it readable, or narrow the glob"})
	return false
}

func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
