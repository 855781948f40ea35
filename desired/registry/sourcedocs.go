package registry

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
)

// sourceClaims decides, name by name and kind by kind, whose declaration is used:
// the workspace's own, which shadows any source's, else the one source that
// brings it; two sources that bring one name are an error at both.
type sourceClaims struct {
	reg   *Registry
	local map[string]map[string]bool // kind → names the workspace declares
	taken map[string]map[string]int  // kind → name → index of the source that brought it
}

func newSourceClaims(reg *Registry) *sourceClaims {
	c := &sourceClaims{reg: reg, local: map[string]map[string]bool{"skill": {}, "capability": {}, "profile": {}},
		taken: map[string]map[string]int{"skill": {}, "capability": {}, "profile": {}}}
	for _, s := range reg.Skills {
		c.local["skill"][s.Name] = true
	}
	for _, cap := range reg.Capabilities {
		c.local["capability"][cap.ID] = true
	}
	for _, p := range reg.Profiles {
		c.local["profile"][p.Name] = true
	}
	return c
}

// claim tells whether source i (declared at pos) may add the kind called
// name; if not, it records why: the workspace's own shadows it, or another
// source brought it first, and then what that one added is taken out again.
func (c *sourceClaims) claim(l *loader, kind, name string, i int, pos Position) bool {
	reg, specs := c.reg, c.reg.Config.Spec.Sources
	if c.local[kind][name] {
		reg.Shadowed = append(reg.Shadowed, Shadowed{Kind: kind, Name: name, Source: specs[i].Name, At: pos})
		return false
	}
	first, ok := c.taken[kind][name]
	if !ok {
		c.taken[kind][name] = i
		return true
	}
	if first == i {
		msg := fmt.Sprintf("%s %s comes twice from source %s", kind, name, specs[i].Name)
		l.add(Problem{Pos: pos, Message: msg, Hint: "declare it once in the source, or declare it in the workspace, which shadows the source's"})
		return false
	}
	msg := fmt.Sprintf("%s %s comes from source %s and from source %s", kind, name, specs[first].Name, specs[i].Name)
	hint := "leave it out of one source, or declare it in the workspace, which shadows both"
	l.add(Problem{Pos: itemAt(reg.config, first, "spec", "sources").Position(), Message: msg, Hint: hint},
		Problem{Pos: pos, Message: msg, Hint: hint})
	switch kind {
	case "skill":
		reg.Skills = slices.DeleteFunc(reg.Skills, func(s Skill) bool { return s.Name == name && s.Origin != nil })
	case "capability":
		reg.Capabilities = slices.DeleteFunc(reg.Capabilities, func(c Capability) bool { return c.ID == name && c.source > 0 })
	case "profile":
		reg.Profiles = slices.DeleteFunc(reg.Profiles, func(p Profile) bool { return p.Name == name && p.source > 0 })
	}
	return false
}

// sourceDocuments adds the registry files (Document) of source i (src, declared at pos)
// that the lock pins, from files: each must be there and hold what the lock's
// digest says. What the workspace declares itself shadows what they declare.
func (l *loader) sourceDocuments(reg *Registry, files []SourceFile, src RemoteSource, locked LockedSource, i int, pos Position, c *sourceClaims) {
	byPath := map[string]SourceFile{}
	for _, f := range files {
		if f.Document {
			byPath[f.Path] = f
		}
	}
	again := fmt.Sprintf(`run "skillsync update %s" and review the change`, src.Name)
	for _, p := range slices.Sorted(maps.Keys(locked.Documents)) {
		at := src.Name + ":" + p
		f, ok := byPath[p]
		switch {
		case !ok:
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("source %s has no registry file %s at %s", src.Name, at, locked.PinLabel()), Hint: again})
			continue
		case f.Dir || f.Link || f.Other:
			l.add(Problem{Pos: Position{File: at}, Message: "a registry file of a source must be a regular file", Hint: "a symlink or a folder is not read from a source"})
			continue
		}
		if got := SkillDigest(sha256.Sum256(f.Data)); got != locked.Documents[p] {
			l.add(Problem{Pos: pos, Message: fmt.Sprintf("registry file %s of source %s is %s at %s, not %s as %s says", at, src.Name, got, locked.PinLabel(), locked.Documents[p], reg.lockFile), Hint: again})
			continue
		}
		raw := textFindings(at, f.Data)
		if ok, _ := l.blockFindings(src, pos, raw); !ok {
			continue
		}
		caps, skills, profiles := len(reg.Capabilities), len(reg.Skills), len(reg.Profiles)
		data := f.Data
		l.addDocumentsOf(reg, at, readFile{data: data}, func() []byte { return data }, true)
		var decoded []finding
		for _, c := range reg.Capabilities[caps:] {
			decoded = append(decoded, valueFindings(at, c.Pos(), c.Spec)...)
		}
		for _, s := range reg.Skills[skills:] {
			decoded = append(decoded, valueFindings(at, s.Pos(), s.Spec)...)
		}
		for _, p := range reg.Profiles[profiles:] {
			decoded = append(decoded, valueFindings(at, p.doc.at("metadata", "name").Position(), p.Spec)...)
		}
		if ok, _ := l.blockFindings(src, pos, escaped(decoded, raw)); !ok {
			reg.Capabilities, reg.Skills, reg.Profiles = reg.Capabilities[:caps], reg.Skills[:skills], reg.Profiles[:profiles]
			continue
		}
		claimAdded(l, c, "capability", &reg.Capabilities, caps, i, pos, func(cap *Capability) string { cap.source = i + 1; return cap.ID })
		// A skill a document declares comes from that file, as the lock pins it.
		origin := &SourceOrigin{Source: src.Name, Git: src.Git, Commit: locked.Commit, Index: src.Index, OCI: src.OCI, Digest: locked.Digest,
			Dir: p, SkillDigest: locked.Documents[p], Signatures: signedBy(src, locked)}
		claimAdded(l, c, "skill", &reg.Skills, skills, i, pos, func(s *Skill) string { s.Origin = origin; return s.Name })
		claimAdded(l, c, "profile", &reg.Profiles, profiles, i, pos, func(p *Profile) string { p.source = i + 1; return p.Name })
	}
}

// claimAdded keeps, of what source i added to the declarations all from
// index from on, those c lets claim their names; mark marks each as the
// source's and names it. all is the registry's own slice, which a clash
// takes the first source's declaration out of.
func claimAdded[T any](l *loader, c *sourceClaims, kind string, all *[]T, from, i int, pos Position, mark func(*T) string) {
	added := slices.Clone((*all)[from:])
	*all = (*all)[:from]
	for _, d := range added {
		if c.claim(l, kind, mark(&d), i, pos) {
			*all = append(*all, d)
		}
	}
}

// SourceDocuments are the registry files (Document) of files that src takes, by path,
// each with the digest skillsync.lock records for it. A pattern of src that
// takes no file, a problem at patternAt(its index), and a file that is no
// regular file, are problems.
func SourceDocuments(src RemoteSource, files []SourceFile, patternAt func(j int) Position) (map[string]string, Problems) {
	docs := map[string]string{}
	var problems Problems
	for j, pattern := range src.Registry {
		matched := false
		for _, f := range files {
			if !f.Document || !(RemoteSource{Registry: []string{pattern}}).TakesDocument(f.Path) {
				continue
			}
			matched = true
			if f.Dir || f.Link || f.Other {
				problems = append(problems, Problem{Pos: Position{File: src.Name + ":" + f.Path}, Message: "a registry file of a source must be a regular file", Hint: "a symlink or a folder is not read from a source"})
				continue
			}
			docs[f.Path] = SkillDigest(sha256.Sum256(f.Data))
		}
		if !matched {
			problems = append(problems, Problem{Pos: patternAt(j), Message: fmt.Sprintf("registry pattern %q of source %s matches no file", pattern, src.Name),
				Hint: "check the pattern against the source's files, relative to the root of its repository or artifact"})
		}
	}
	return docs, problems
}
