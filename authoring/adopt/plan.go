package adopt

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
)

// Group checks skills, the hand-written copies given to adopt, against every
// hand-written SKILL.md of the workspace: each copy of a name (its directory
// differing only in case included) must be given, and all must declare the same
// skill, since a name means one thing in every client. It returns skills by name,
// in the order given.
func Group(skills []Skill, handWritten []string) ([]Skill, error) {
	var names []string
	byName := map[string][]Skill{}
	for _, sk := range skills {
		if len(byName[sk.Name]) == 0 {
			names = append(names, sk.Name)
		}
		byName[sk.Name] = append(byName[sk.Name], sk)
	}
	var out []Skill
	for _, name := range names {
		copies := byName[name]
		for _, p := range handWritten {
			if strings.EqualFold(path.Base(path.Dir(p)), name) && !slices.ContainsFunc(copies, func(sk Skill) bool { return sk.Path == p }) {
				return nil, fmt.Errorf("%s is another hand-written %s: give it too, or remove it, since a name must mean one thing in every client", p, name)
			}
		}
		for _, c := range copies[1:] {
			if !Same(copies[0], c) {
				return nil, fmt.Errorf("%s and %s both declare %s, differently: make them the same, or remove one", copies[0].Path, c.Path, name)
			}
		}
		out = append(out, copies...)
	}
	return out, nil
}

// File is a file adopt creates.
type File struct {
	Path       string
	Content    []byte
	Executable bool
}

// Files are the registry documents declaring skills, one per name, where the
// first fitting pattern of spec.registry puts them; with bodyFile, each body in
// a Markdown file beside its document; a skill with supporting files whole, as a
// skill directory beside its document.
func Files(patterns []string, skills []Skill, bodyFile bool) ([]File, error) {
	var files []File
	seen := map[string]bool{}
	for _, sk := range skills {
		if seen[sk.Name] {
			continue
		}
		seen[sk.Name] = true
		doc, ok := registry.FileFor(patterns, "skill-"+sk.Name)
		if !ok {
			return nil, fmt.Errorf("no pattern of spec.registry (%s) names a file adopt can create, such as registry/*.yaml; add one", strings.Join(patterns, ", "))
		}
		body, dir := "", ""
		switch {
		case len(sk.Files) > 0:
			// The whole directory, as it is: its SKILL.md is the skill.
			dir = "skills/" + sk.Name
			files = append(files, File{Path: path.Join(path.Dir(doc), dir, "SKILL.md"), Content: []byte(sk.Text)})
			for _, f := range sk.Files {
				files = append(files, File{Path: path.Join(path.Dir(doc), dir, f.Path), Content: f.Data, Executable: f.Executable})
			}
		case bodyFile:
			body = "skills/" + sk.Name + ".md"
			files = append(files, File{Path: path.Join(path.Dir(doc), body), Content: []byte(sk.Spec.Body)})
		}
		files = append(files, File{Path: doc, Content: Document(sk, body, dir)})
	}
	return files, nil
}
