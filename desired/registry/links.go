package registry

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// markdownLink finds the target of a Markdown link or image: [text](target) or
// ![alt](target "title").
var markdownLink = regexp.MustCompile(`!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)`)

// uriScheme starts a link that is no path in the skill: https:, mailto:, file:.
var uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// Warnings are what a valid registry holds that is probably a mistake, though
// nothing stops skillsync from writing it: a skill body that links a file the
// skill does not bring, which every client would be pointed at and not find;
// hidden text in the workspace's own skills and capabilities.
func Warnings(reg *Registry) Problems {
	var out Problems
	for _, s := range reg.Skills {
		out = append(out, missingLinks(s)...)
	}
	out = append(out, hiddenTextWarnings(reg)...)
	return out.Sorted()
}

// missingLinks are the relative links of s's body to files its directory does
// not hold: every one, for a skill without a directory.
func missingLinks(s Skill) Problems {
	held := map[string]bool{"SKILL.md": true}
	for _, f := range s.Files {
		held[f.Path] = true
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			held[d] = true
		}
	}
	var out Problems
	fenced := false
	for i, line := range strings.Split(s.Body, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
			target := linkPath(m[1])
			if target == "" || held[target] {
				continue
			}
			out = append(out, s.linkWarning(i+1, m[1], target))
		}
	}
	return out
}

// linkPath is the file of the skill directory a link target names, "" for a
// link elsewhere (a URL, an anchor, an absolute path).
func linkPath(target string) string {
	if uriScheme.MatchString(target) || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "/") {
		return ""
	}
	target, _, _ = strings.Cut(target, "#")
	target, _, _ = strings.Cut(target, "?")
	if unescaped, err := url.PathUnescape(target); err == nil {
		target = unescaped
	}
	if target == "" {
		return ""
	}
	return path.Clean(target)
}

// linkWarning is the warning that the line of s's body links target, the
// file clean, which the skill does not bring.
func (s Skill) linkWarning(line int, target, clean string) Problem {
	p := Problem{Message: fmt.Sprintf("the body of skill %s links %s, which ", s.Name, target)}
	switch {
	case clean == ".." || strings.HasPrefix(clean, "../"):
		p.Message += "is outside the skill's directory: a client reading the generated copy will not find it"
		p.Hint = "keep what the skill needs inside its directory, or link it by URL"
	case s.Dir != "":
		p.Message += "the skill directory does not hold"
		p.Hint = "add the file to " + s.Dir + ", or fix the link"
	default:
		p.Message += "no client will find beside the generated SKILL.md: the skill is its body alone"
		p.Hint = "declare the skill with spec.dir, a directory holding the body and the file"
	}
	switch {
	case s.Dir != "":
		p.Pos = Position{File: path.Join(s.Dir, "SKILL.md"), Line: s.bodyLine + line - 1}
	case s.BodyPath != "":
		p.Pos = Position{File: s.BodyPath, Line: line}
	default:
		p.Pos = s.doc.at("spec", "body").Position()
	}
	return p
}
