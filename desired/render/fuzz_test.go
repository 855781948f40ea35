package render

import (
	"testing"
	"unicode/utf8"

	"github.com/skillsync/skillsync/clients"
)

// FuzzFrontMatterRoundTrip renders arbitrary titles for every target and checks that
// the front matter parses back to the same values and the body keeps the text.
func FuzzFrontMatterRoundTrip(f *testing.F) {
	for _, title := range nastyTitles {
		f.Add(title, "write")
	}
	f.Add("plain", "read")
	f.Fuzz(func(t *testing.T, title, effect string) {
		if !utf8.ValidString(title) || title == "" {
			t.Skip("validation refuses such a title")
		}
		if effect != "read" {
			effect = "write"
		}
		s := Skill{
			Name: "fuzz", Owner: "capability/fuzz.title", Description: title, ArgumentHint: "<text>",
			DisableModelInvocation: effect != "read",
			Call:                   &Call{CapabilityID: "fuzz.title", Title: title, Effect: effect, Argument: "text", MCPServer: "srv", MCPTool: "fuzz"},
		}
		for _, target := range clients.TargetNames() {
			path := ".x/skills/fuzz/SKILL.md"
			got, err := File(target, s, path)
			if err != nil {
				t.Fatalf("%s: %v", target, err)
			}
			assertRoundTrip(t, target, s, path, got)
		}
	})
}
