package desired

import (
	"maps"
	"path"
	"slices"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// InputDirs lists the directories whose entries can change what the inputs are:
// the config's directory, .skillsync/ (the profile), those of the symlinks on the
// way to the config (see registry.LinkDirs), and the registry directories (see
// registry.Dirs).
func InputDirs(r workspacefs.FS, reg *registry.Registry) []string {
	set := map[string]bool{}
	for _, w := range []string{".", path.Dir(ProfileFile)} {
		if d, ok := registry.NearestDir(r, w, true); ok {
			set[d] = true
		}
	}
	for _, d := range registry.LinkDirs(r, registry.ConfigName) {
		set[d] = true
	}
	for _, d := range registry.Dirs(r, reg) {
		set[d] = true
	}
	return slices.Sorted(maps.Keys(set))
}
