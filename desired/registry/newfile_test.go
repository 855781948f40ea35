package registry

import "testing"

func TestFileFor(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		want     string
	}{
		{[]string{"registry/*.yaml"}, "registry/skill-x.yaml"},
		{[]string{"registry/**/*.yaml", "skills.yaml", "reg/*.yml"}, "reg/skill-x.yml"},
		{[]string{"registry/[a-z]*.yaml"}, ""},
		{[]string{"one.yaml"}, ""},
	} {
		if got, _ := FileFor(c.patterns, "skill-x"); got != c.want {
			t.Errorf("FileFor(%q) = %q, want %q", c.patterns, got, c.want)
		}
	}
}
