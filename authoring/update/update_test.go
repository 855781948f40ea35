package update

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// manySkills is a transport whose one source holds n skills.
type manySkills int

func (n manySkills) Resolve(src registry.RemoteSource) (registry.LockedSource, error) {
	return registry.LockedSource{Name: src.Name, Git: src.Git, Commit: strings.Repeat("ab", 20)}, nil
}

func (n manySkills) ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error) {
	var files []registry.SourceFile
	for i := range int(n) {
		name := fmt.Sprintf("s%d", i)
		files = append(files, registry.SourceFile{Path: name, Dir: true},
			registry.SourceFile{Path: name + "/SKILL.md", Data: fmt.Appendf(nil, "---\nname: %s\ndescription: Skill %d.\n---\nDo %d.\n", name, i, i)})
	}
	return files, nil
}

// A lock that would not read back is never written: a source of more skills
// than one document of the lock may hold is refused with what to do.
func TestResolveRefusesALockThatWouldNotReadBack(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, root, registry.ConfigName, []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  sources:\n    - name: big\n      git: https://git.example.com/big.git\n"))
	reg, err := registry.LoadConfig(workspacefs.OS{}, root, registry.ConfigName, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Resolve(reg, registry.Lock{}, nil, manySkills(60_000)); err == nil || !strings.Contains(err.Error(), "the lock would not read back") || !strings.Contains(err.Error(), "include") {
		t.Errorf("Resolve of 60 000 skills = %v", err)
	}
}
