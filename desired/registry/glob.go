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
	current := []globbed{{rel: ".", real: l.root}}
	segments := strings.Split(clean, "/")
	for i, seg := range segments {
		last := i == len(segments)-1
		var next []globbed
		for _, dir := range current {
			for _, cand := range l.expand(dir, seg, pattern, pos) {
				if real, ok := l.match(cand, pattern, pos, last, !strings.ContainsAny(seg, `*?[\`)); ok {
					next = append(next, globbed{rel: cand.rel, real: real})
				}
			}
		}
		current = next
	}
	matches := make([]string, len(current))
	for i, m := range current {
		matches[i] = m.rel
	}
	sort.Strings(matches)
	return matches
}

// globbed is a path a glob matched so far, and where it really is: every symlink
// on it resolved.
type globbed struct {
	rel, real string
}

// candidate is a path a segment of a glob may match. typed says typ is known from
// the listing of its directory, and real is then that directory's real path
// joined with its name: where it is, unless it is a link.
type candidate struct {
	rel, real string
	typ       fs.FileMode
	typed     bool
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
func (l *loader) expand(dir globbed, seg, pattern string, pos Position) []candidate {
	if !strings.ContainsAny(seg, `*?[\`) {
		return []candidate{{rel: path.Join(dir.rel, seg)}}
	}
	entries, err := l.r.ReadDir(dir.rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil && l.failed(dir.rel, err):
		return nil
	case err != nil:
		l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q cannot list %s: %v", pattern, dir.rel, workspacefs.Cause(err)),
			Hint: "make the directory readable, or narrow the glob so it does not reach it"})
		return nil
	}
	var out []candidate
	for _, e := range entries {
		if MatchSegment(seg, e.Name()) {
			out = append(out, candidate{rel: path.Join(dir.rel, e.Name()), real: filepath.Join(dir.real, e.Name()), typ: e.Type(), typed: true})
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

// match tells whether cand, which matched a segment of pattern, goes on: a
// directory for a segment before the last, a readable regular file for the last,
// and where it really is. Anything else the last segment matched is a problem;
// before the last, only what cannot be told from a directory is. literal says the
// segment named it without a pattern.
func (l *loader) match(cand candidate, pattern string, pos Position, last, literal bool) (string, bool) {
	rel, real, mode := cand.rel, cand.real, cand.typ
	// Listed as a plain file or directory (no symlink, and on Windows no
	// junction, which is a directory of another type too) in a directory resolved
	// already, it is where its directory is, and what the listing says: a
	// thousand registry files are not each resolved from the root of the
	// filesystem and stat-ed again. Anything else is.
	listed := cand.typed && (mode == 0 || mode == fs.ModeDir)
	if !listed {
		var err error
		if real, err = l.r.EvalSymlinks(rel); err != nil {
			return "", l.unresolved(rel, pattern, pos, err)
		}
		if !l.inside(real) {
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, which leads outside the workspace", pattern, rel),
				Hint: "registry files and directories must be inside the workspace, symlinks included"})
			return "", false
		}
	}
	if out := l.outputDir(real); out != "" {
		// A directory a pattern matched on the way is passed over: a glob like
		// .*/*.yaml must not turn invalid the moment skillsync creates .skillsync/.
		// A file there, or a directory the glob names, is an error.
		if last || literal {
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, inside %s, where skillsync writes", pattern, rel, out),
				Hint: "keep the registry out of the skill directories and " + StateDir + "/"})
		}
		return "", false
	}
	if !listed {
		// real is inside the root and has no symlink left on it.
		resolved, err := filepath.Rel(l.root, real)
		if err != nil {
			return "", l.unresolved(rel, pattern, pos, err)
		}
		info, err := l.r.Stat(filepath.ToSlash(resolved))
		if err != nil {
			return "", l.unresolved(rel, pattern, pos, err)
		}
		mode = info.Mode()
	}
	switch {
	case !last:
		return real, mode.IsDir()
	case mode.IsRegular():
		return real, true
	}
	l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches %s, which is %s, not a regular file", pattern, rel, kindOf(mode)),
		Hint: "a registry glob matches YAML or JSON files only; move it away or narrow the glob"})
	return "", false
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
