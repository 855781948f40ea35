package forget

import (
	"strings"
	"testing"
)

func TestDisableKeepsEveryOtherByte(t *testing.T) {
	head := "apiVersion: skillsync/v1\nkind: Workspace\n# the team's choices\nspec:\n  registry: [registry/*.yaml]\n"
	for _, c := range []struct{ name, in, want string }{
		{"empty flow list", head + "  disabled: []\n  profile: cli\n", head + "  disabled: [note]\n  profile: cli\n"},
		{"flow list", head + "  disabled: [intent, report]  # old ones\n", head + "  disabled: [intent, report, note]  # old ones\n"},
		{"block list", head + "  disabled:\n    - intent\n    - report # mine\n  profile: cli\n", head + "  disabled:\n    - intent\n    - report # mine\n    - note\n  profile: cli\n"},
		{"block list at the key's column", head + "  disabled:\n  - intent\n", head + "  disabled:\n  - intent\n  - note\n"},
		{"no key", head + "  profile: cli\n", "apiVersion: skillsync/v1\nkind: Workspace\n# the team's choices\nspec:\n  disabled: [note]\n  registry: [registry/*.yaml]\n  profile: cli\n"},
		{"null", head + "  disabled:\n  profile: cli\n", head + "  disabled: [note]\n  profile: cli\n"},
		{"CRLF", strings.ReplaceAll(head+"  profile: cli\n", "\n", "\r\n"), strings.ReplaceAll("apiVersion: skillsync/v1\nkind: Workspace\n# the team's choices\nspec:\n  disabled: [note]\n  registry: [registry/*.yaml]\n  profile: cli\n", "\n", "\r\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, changed, err := Disable([]byte(c.in), "note")
			if err != nil || !changed || string(got) != c.want {
				t.Errorf("Disable = %v, %v\n%s\nwant\n%s", changed, err, got, c.want)
			}
		})
	}
}

func TestDisableLeavesAListedName(t *testing.T) {
	in := "kind: Workspace\nspec:\n  disabled: [intent, note]\n"
	got, changed, err := Disable([]byte(in), "note")
	if err != nil || changed || string(got) != in {
		t.Errorf("Disable = %q, %v, %v; want the config unchanged", got, changed, err)
	}
}

func TestDisableRefusesWhatItCannotEditSafely(t *testing.T) {
	for name, in := range map[string]string{
		"flow spec":               "kind: Workspace\nspec: {registry: [registry/*.yaml]}\n",
		"list over lines":         "kind: Workspace\nspec:\n  disabled: [intent,\n    report]\n",
		"quoted names":            "kind: Workspace\nspec:\n  disabled: ['a]b']\n",
		"not a list":              "kind: Workspace\nspec:\n  disabled: intent\n",
		"null with a comment":     "kind: Workspace\nspec:\n  disabled: # none yet\n",
		"no spec":                 "kind: Workspace\n",
		"not YAML":                "kind: [Workspace\n",
		"block entry over lines":  "kind: Workspace\nspec:\n  disabled:\n    - |\n      a\n",
		"anchor shared elsewhere": "kind: Workspace\nspec:\n  disabled: &d [intent]\n  reservedNames: *d\n",
	} {
		t.Run(name, func(t *testing.T) {
			if got, _, err := Disable([]byte(in), "note"); err == nil {
				t.Errorf("Disable = %q, want an error", got)
			} else if name != "not YAML" && !strings.Contains(err.Error(), "add it there by hand") {
				t.Errorf("error %q does not say to add the name by hand", err)
			}
		})
	}
}
