package registry

import (
	"path"
	"strconv"
)

// publishedSkills checks the selection of the skills src publishes.
func (v *validator) publishedSkills(src MCPSource, at func(keys ...string) place) {
	sel := src.PublishedSkills
	if sel == nil {
		return
	}
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"include", sel.Include}, {"exclude", sel.Exclude}} {
		for j, pattern := range list.patterns {
			if _, err := path.Match(pattern, ""); err != nil {
				v.add(at("publishedSkills", list.key, strconv.Itoa(j)), "use *, ? and [ ] as in shell patterns", "skill pattern %q is not valid", pattern)
			}
		}
	}
	v.required(v.reg.config, sel.RequiredCapabilities, at("publishedSkills", "requiredCapabilities").keys...)
}
