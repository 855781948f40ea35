package desired

import (
	"testing"
	"unsafe"
)

// A capability's files in every target carry one owner string, made when the
// capability was loaded: a plan of ten thousand capabilities holds each once,
// not once per target and file.
func TestTheFilesOfACapabilityShareItsOwner(t *testing.T) {
	reg := example(t)
	cli, _ := ResolveProfile(reg, ProfileSources{Flag: "cli"})
	owners := map[string]*byte{}
	for i := range reg.Capabilities {
		c := &reg.Capabilities[i]
		owners[c.Owner()] = unsafe.StringData(c.Owner())
	}
	seen := 0
	for _, target := range []string{"claude-code", "qwen-code", "agents"} {
		for p, f := range BuildTarget(reg, cli, target).Files {
			data, ok := owners[f.Owner]
			if !ok {
				continue
			}
			seen++
			if unsafe.StringData(f.Owner) != data {
				t.Errorf("%s: owner %s is a string of its own, not the capability's", p, f.Owner)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no file of a capability was built")
	}
}
