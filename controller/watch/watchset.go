package watch

import (
	"fmt"
	"maps"
	"path"
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
func watchDirs(r workspacefs.FS, config string, reg *registry.Registry) []string {
	set := map[string]bool{}
	for _, d := range inputDirs(r, config, reg) {
		set[d] = true
	}
	for _, t := range clients.Targets {
		dir := t.Dir
		nearest, ok := registry.NearestDir(r, dir, false)
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
				for _, f := range skillFolders(r, w) {
					set[f] = true
				}
			} else if d, ok := registry.NearestDir(r, w, false); ok {
				set[d] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// maxSkillFolders bounds the folders watched in one skill directory: a skill
// has a few (scripts, references, assets); a person's tree kept in one is not
// watched past it, and the resync finds what changed there.
const maxSkillFolders = 64

// skillFolders lists the folders inside the skill directory dir, where
// supporting files are written, never through a symlink.
func skillFolders(r workspacefs.FS, dir string) []string {
	var out []string
	queue := []string{dir}
	for len(queue) > 0 && len(out) < maxSkillFolders {
		entries, _ := r.ReadDir(queue[0])
		for _, e := range entries {
			if e.IsDir() && len(out) < maxSkillFolders {
				f := path.Join(queue[0], e.Name())
				out = append(out, f)
				queue = append(queue, f)
			}
		}
		queue = queue[1:]
	}
	return out
}

// inputDirs lists the directories whose entries can change what the inputs are:
// the registry's (registry.InputDirs) and .skillsync/, where the profile is.
func inputDirs(r workspacefs.FS, config string, reg *registry.Registry) []string {
	dirs := registry.InputDirs(r, config, reg)
	if d, ok := registry.NearestDir(r, state.Dir, true); ok && !slices.Contains(dirs, d) {
		dirs = append(dirs, d)
		slices.Sort(dirs)
	}
	return dirs
}

// inputPaths tells which paths of the watched directories are inputs, or could
// become one: an event for any other (a log file written beside skillsync.yaml,
// .git beside a registry directory) changes nothing a reconcile reads.
type inputPaths struct {
	any      bool            // the inputs did not load: every path may be one
	paths    map[string]bool // input files, the directories above them, the links on their way
	files    map[string]bool // the input files themselves
	patterns []string        // registry globs: a new match, or a directory one could appear under
	// folders are those of skill directories: anything new in one is a file of
	// the skill.
	folders map[string]bool
}

// inputsOf lists the input paths of a registry; nil means it did not load.
func inputsOf(r workspacefs.FS, reg *registry.Registry) inputPaths {
	if reg == nil {
		return inputPaths{any: true}
	}
	in := inputPaths{paths: map[string]bool{}, files: map[string]bool{}, folders: map[string]bool{},
		patterns: reg.RegistryPatterns()}
	for _, p := range reg.SkillDirPatterns() {
		in.patterns = append(in.patterns, path.Join(p, desired.SkillFile))
	}
	for _, d := range reg.SkillDirs() {
		in.folders[d] = true
		for p := d; p != "." && p != "/"; p = path.Dir(p) {
			in.paths[p] = true
		}
	}
	files := append([]string{reg.ConfigFile, desired.ProfileFile}, reg.Files...)
	files = append(files, reg.SkillFiles()...)
	for _, f := range files {
		in.files[f] = true
		for p := f; p != "." && p != "/"; p = path.Dir(p) {
			in.paths[p] = true
		}
		links, _, at := registry.WalkLinks(r, f)
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
	if in.any || in.paths[rel] || in.folders[path.Dir(rel)] {
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

// linkedInputs lists the input files of reg with more than one hard link: a
// write through another name, in a directory no one watches, sends no event for
// the name the registry reads.
func linkedInputs(r workspacefs.FS, reg *registry.Registry) []string {
	files := append([]string{reg.ConfigFile, desired.ProfileFile}, reg.Files...)
	var out []string
	for _, f := range append(files, reg.SkillFiles()...) {
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
