package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// watchDirs lists the workspace directories whose changes can change what a
// reconcile does: the config's directory, every registry and body file directory,
// .skillsync/, each target directory and each skill directory in it. A directory
// that does not exist yet is covered by its nearest existing parent; symlinks are
// never watched. reg may be nil when the inputs do not load.
func watchDirs(r *os.Root, reg *registry.Registry) []string {
	wanted := []string{".", StateDir}
	if reg != nil {
		for _, pattern := range reg.Config.Spec.Registry {
			wanted = append(wanted, staticPrefix(pattern))
		}
		for _, f := range reg.Files {
			wanted = append(wanted, path.Dir(f))
		}
		for _, s := range reg.Skills {
			if s.BodyPath != "" {
				wanted = append(wanted, path.Dir(s.BodyPath))
			}
		}
	}
	for _, dir := range desired.TargetDirs() {
		wanted = append(wanted, dir)
		entries, _ := workspacefs.ReadDir(r, dir)
		for _, e := range entries {
			if e.IsDir() {
				wanted = append(wanted, path.Join(dir, e.Name()))
			}
		}
	}
	set := map[string]bool{}
	for _, w := range wanted {
		if d, ok := nearestDir(r, path.Clean(w)); ok {
			set[d] = true
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
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

// nearestDir walks up from dir to the first plain directory inside the root.
func nearestDir(r *os.Root, dir string) (string, bool) {
	if dir == ".." || strings.HasPrefix(dir, "../") || path.IsAbs(dir) {
		return "", false
	}
	for {
		info, err := r.Lstat(dir)
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
