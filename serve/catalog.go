package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/mcp/skillserver"
)

// TargetDir is the directory of the target named name, and whether the
// workspace enables it.
func TargetDir(reg *registry.Registry, name string) (string, bool) {
	for _, t := range clients.Targets {
		if t.Name == name {
			return t.Dir, slices.Contains(reg.Targets(), name)
		}
	}
	return "", false
}

// Catalog is every skill the desired state puts into the target named target,
// with every file of its directory as skillsync would write it there, by the
// URI skill://NAME/PATH.
func Catalog(reg *registry.Registry, profile desired.Profile, target string) (skillserver.Catalog, error) {
	dir, enabled := TargetDir(reg, target)
	if !enabled {
		return skillserver.Catalog{}, fmt.Errorf("the workspace enables no target %q; it enables %s", target, strings.Join(reg.Targets(), ", "))
	}
	st := desired.BuildTarget(reg, profile, target)
	skills := map[string]map[string][]byte{} // skill directory → path in it → content
	for _, f := range st.Files {
		rel, ok := strings.CutPrefix(f.Path, dir+"/")
		name, inSkill, _ := strings.Cut(rel, "/")
		if !ok || f.Skill == "" || inSkill == "" {
			continue // the target's own files, as .gitattributes
		}
		content, err := f.Content()
		if err != nil {
			return skillserver.Catalog{}, fmt.Errorf("%s: %w", f.Path, err)
		}
		if skills[name] == nil {
			skills[name] = map[string][]byte{}
		}
		skills[name][inSkill] = content
	}
	cat := skillserver.Catalog{Files: map[string][]byte{}}
	for _, name := range slices.Sorted(maps.Keys(skills)) {
		files := skills[name]
		e := skillserver.Entry{URI: "skill://" + name + "/SKILL.md"}
		var manifest []skillserver.File
		for _, p := range slices.Sorted(maps.Keys(files)) {
			uri := "skill://" + name + "/" + escapePath(p)
			sum := sha256.Sum256(files[p])
			manifest = append(manifest, skillserver.File{URI: uri, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: len(files[p])})
			cat.Files[uri] = files[p]
		}
		e.Resources = manifest
		front, err := frontMatter(files["SKILL.md"])
		if err != nil {
			return skillserver.Catalog{}, fmt.Errorf("%s: %w", e.URI, err)
		}
		e.Frontmatter = front
		cat.Entries = append(cat.Entries, e)
	}
	return cat, nil
}

// frontMatter is the mapping at the head of a SKILL.md skillsync rendered; its
// banner lines are YAML comments, and so are not in it.
func frontMatter(skill []byte) (map[string]any, error) {
	head, ok := strings.CutPrefix(string(skill), "---\n")
	if !ok {
		return nil, fmt.Errorf("no front matter")
	}
	head, _, ok = strings.Cut(head, "\n---\n")
	if !ok {
		return nil, fmt.Errorf("front matter not closed")
	}
	var front map[string]any
	if err := yaml.Unmarshal([]byte(head), &front); err != nil {
		return nil, err
	}
	return front, nil
}

// escapePath is the slash path p with each segment escaped as a URI path
// segment: a file may be named "50% off.md", and its resource's URI must parse.
func escapePath(p string) string {
	segments := strings.Split(p, "/")
	for i, s := range segments {
		segments[i] = url.PathEscape(s)
	}
	return strings.Join(segments, "/")
}
