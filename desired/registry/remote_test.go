package registry

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// fakeSources is a SourceReader over files held in the test, by source name;
// a source missing from it cannot be read.
type fakeSources map[string][]SourceFile

func (f fakeSources) ReadSource(src RemoteSource, at LockedSource) ([]SourceFile, error) {
	files, ok := f[src.Name]
	if !ok {
		return nil, errors.New("host unreachable")
	}
	return files, nil
}

// skillFiles is a skill directory name, as a source holds it under its folder.
func skillFiles(name, body string, more ...SourceFile) []SourceFile {
	out := []SourceFile{{Path: name, Dir: true},
		{Path: name + "/SKILL.md", Data: fmt.Appendf(nil, "---\nname: %s\ndescription: %s skill.\n---\n%s\n", name, name, body)}}
	for _, f := range more {
		f.Path = name + "/" + f.Path
		out = append(out, f)
	}
	return out
}

const commitA = "0123456789abcdef0123456789abcdef01234567"

// lockFor is the lock of sources as SourceSkills sums what they hold.
func lockFor(t *testing.T, specs []RemoteSource, held fakeSources) string {
	t.Helper()
	var l Lock
	for _, src := range specs {
		sums, ps := SourceSkills(src, held[src.Name])
		if len(ps) > 0 {
			t.Fatal(ps)
		}
		locked := LockedSource{Name: src.Name, Git: src.Git, Ref: src.Ref, Path: src.Path, Commit: commitA, Skills: map[string]string{}}
		for n, s := range sums {
			locked.Skills[n] = SkillDigest(s)
		}
		l.Sources = append(l.Sources, locked)
	}
	return string(FormatLock(l))
}

const sourcesConfig = `apiVersion: skillsync/v1
kind: Workspace
spec:
  registry: [registry/*.yaml]
  sources:
    - name: team
      git: https://git.example.com/team/skills.git
      ref: v1
      allow: [{finding: executable}]
    - name: vendor
      git: git@git.example.com:vendor/skills.git
`

var sourceSpecs = []RemoteSource{
	{Name: "team", Git: "https://git.example.com/team/skills.git", Ref: "v1", Allow: []Allowance{{Finding: FindingExecutable}}},
	{Name: "vendor", Git: "git@git.example.com:vendor/skills.git"},
}

func TestSourcesJoinTheRegistryAsTheLockPinsThem(t *testing.T) {
	held := fakeSources{
		"team":   skillFiles("deploy", "Deploy.", SourceFile{Path: "run.sh", Data: []byte("#!/bin/sh\n"), Executable: true}),
		"vendor": skillFiles("lint", "Lint."),
	}
	root := workspace(t, map[string]string{
		ConfigName:          sourcesConfig,
		LockName:            lockFor(t, sourceSpecs, held),
		"registry/own.yaml": "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: notes}\nspec: {description: Notes., body: Take notes.}\n",
	})
	reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Skill{}
	for _, s := range reg.Skills {
		got[s.Name] = s
	}
	deploy := got["deploy"]
	if deploy.Origin == nil || deploy.Origin.Source != "team" || deploy.Origin.Commit != commitA || deploy.Dir != "team:deploy" {
		t.Fatalf("deploy = %+v", deploy)
	}
	if len(deploy.Files) != 1 || !deploy.Files[0].Executable || deploy.Spec.Description != "deploy skill." {
		t.Errorf("deploy's files or front matter: %+v", deploy)
	}
	if got["lint"].Origin == nil || got["notes"].Origin != nil {
		t.Errorf("origins: lint %+v, notes %+v", got["lint"].Origin, got["notes"].Origin)
	}
	// The lock is an input; the sources' skills are no files of the workspace.
	files := strings.Join(reg.SkillFiles(), " ")
	if !strings.Contains(files, LockName) || strings.Contains(files, "deploy") {
		t.Errorf("SkillFiles = %s", files)
	}
	if !Unchanged(reg) {
		t.Error("Unchanged is false for a registry read just now")
	}
	// Without a reader the sources are left out, and nothing is a problem.
	reg, err = LoadConfig(workspacefs.OS{}, root, ConfigName, nil)
	if err != nil || len(reg.Skills) != 1 {
		t.Errorf("LoadConfig: %v, %d skills", err, len(reg.Skills))
	}
}

func TestSourceProblemsAreAtTheSourcesLine(t *testing.T) {
	held := fakeSources{"team": skillFiles("deploy", "Deploy."), "vendor": skillFiles("lint", "Lint.")}
	clash := fakeSources{"team": held["team"], "vendor": skillFiles("deploy", "Deploy.")}
	good := lockFor(t, sourceSpecs, held)
	for _, tc := range []struct {
		name   string
		files  map[string]string // over skillsync.yaml and the lock of held
		reader fakeSources
		want   []string
	}{
		{"no lock", map[string]string{LockName: ""}, held,
			[]string{"skillsync.yaml:6:7: skillsync.lock is missing"}},
		{"a ref the lock did not resolve", map[string]string{ConfigName: strings.Replace(sourcesConfig, "ref: v1", "ref: v2", 1)}, held,
			[]string{`skillsync.yaml:6:7: source team is not in skillsync.lock as declared here (run "skillsync update team"`}},
		{"a source no longer declared", map[string]string{LockName: strings.Replace(good, "name: vendor", "name: gone", 1)}, held,
			[]string{"skillsync.lock: the lock names source gone, which skillsync.yaml no longer declares", "skillsync.yaml:10:7: source vendor is not in skillsync.lock"}},
		{"content the lock does not pin", nil, fakeSources{"team": skillFiles("deploy", "Deploy, changed."), "vendor": held["vendor"]},
			[]string{"skillsync.yaml:6:7: skill deploy of source team is sha256:"}},
		{"one skill in two sources", map[string]string{LockName: lockFor(t, sourceSpecs, clash)}, clash,
			[]string{"skillsync.yaml:6:7: skill deploy comes from source team and from source vendor", "skillsync.yaml:10:7: skill deploy comes from source team and from source vendor"}},
		{"a symlink in a skill directory", nil, fakeSources{"team": skillFiles("deploy", "Deploy.", SourceFile{Path: "out", Link: true}), "vendor": held["vendor"]},
			[]string{"team:deploy/out: a skill directory holds no symlinks"}},
		{"a remote that runs a command", map[string]string{ConfigName: strings.Replace(sourcesConfig, "git@git.example.com:vendor/skills.git", "ext::sh -c id", 1)}, held,
			[]string{`skillsync.yaml:11:12: source vendor: the git remote holds a space`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{ConfigName: sourcesConfig, LockName: good, "registry/none.yaml": ""}
			for k, v := range tc.files {
				files[k] = v
			}
			if files[LockName] == "" {
				delete(files, LockName)
			}
			root := workspace(t, files)
			reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, tc.reader)
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("err = %v, want problems", err)
			}
			text := ps.Error()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("problems do not say %q:\n%s", w, text)
				}
			}
			for _, s := range reg.Skills {
				if s.Origin != nil && s.Name == "deploy" && strings.Contains(tc.want[0], "skill deploy") {
					t.Errorf("skill deploy of source %s kept despite the problem", s.Origin.Source)
				}
			}
		})
	}
}

// A source that cannot be read is no fault of the inputs: the load fails, as
// with a disk error, so that nothing is written and a watcher tries again.
func TestAnUnreadableSourceFailsTheLoad(t *testing.T) {
	held := fakeSources{"team": skillFiles("deploy", "Deploy."), "vendor": skillFiles("lint", "Lint.")}
	root := workspace(t, map[string]string{ConfigName: sourcesConfig, LockName: lockFor(t, sourceSpecs, held), "registry/none.yaml": ""})
	reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, fakeSources{"team": held["team"]})
	// What each source is pinned to is known, read or not: the watcher reports
	// it beside whether the source could be read.
	if reg == nil {
		t.Fatal("no registry from a load that could not read a source")
	}
	if reg.Pinned["team"].Pin() != commitA || reg.Pinned["vendor"].Pin() != commitA {
		t.Errorf("pinned sources: %v", reg.Pinned)
	}
	var se *SourceError
	var ps Problems
	if !errors.As(err, &se) || errors.As(err, &ps) {
		t.Fatalf("err = %v (%T), want a *SourceError and no problems", err, err)
	}
	if want := "skillsync.yaml:10:7: cannot read source vendor: host unreachable"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want it to start %q", err, want)
	}
}

func TestAWorkspaceSkillShadowsASourcesSkill(t *testing.T) {
	held := fakeSources{"team": append(skillFiles("deploy", "Theirs."), skillFiles("notes", "Theirs.")...), "vendor": skillFiles("lint", "Lint.")}
	root := workspace(t, map[string]string{
		ConfigName:          sourcesConfig,
		LockName:            lockFor(t, sourceSpecs, held),
		"registry/own.yaml": "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: notes}\nspec: {description: Ours., body: Ours.}\n",
	})
	reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range reg.Skills {
		if s.Name == "notes" && s.Origin != nil {
			t.Errorf("the source's notes was kept beside the workspace's")
		}
	}
	if len(reg.Shadowed) != 1 || reg.Shadowed[0] != (Shadowed{Kind: "skill", Name: "notes", Source: "team", At: Position{File: ConfigName, Line: 6, Column: 7}}) {
		t.Errorf("Shadowed = %+v", reg.Shadowed)
	}
}

func TestLockRoundTripsInAStableOrder(t *testing.T) {
	l := Lock{Sources: []LockedSource{
		{Name: "zeta", Git: "https://git.example.com/z.git", Commit: commitA, Skills: map[string]string{"b": SkillDigest(sha256.Sum256([]byte("b"))), "a": SkillDigest(sha256.Sum256([]byte("a")))}},
		{Name: "alpha", Git: "git@git.example.com:a/b.git", Ref: "v1: odd # ref", Path: "skills/x", Commit: commitA, Skills: map[string]string{}},
	}}
	data := FormatLock(l)
	text := string(data)
	if strings.Index(text, "name: alpha") > strings.Index(text, "name: zeta") || strings.Index(text, "      a: ") > strings.Index(text, "      b: ") {
		t.Errorf("not in name order:\n%s", text)
	}
	back, ps := ParseLock(LockName, data)
	if len(ps) > 0 {
		t.Fatalf("ParseLock(FormatLock) = %v\n%s", ps, text)
	}
	if a, _ := back.Named("alpha"); a.Ref != "v1: odd # ref" || a.Path != "skills/x" {
		t.Errorf("alpha read back as %+v", a)
	}
	if string(FormatLock(back)) != text {
		t.Errorf("FormatLock(ParseLock(x)) != x:\n%s", FormatLock(back))
	}
	for _, bad := range []struct{ lock, want string }{
		{"sources:\n  - name: a\n    git: x\n    commit: main\n    skills: {}\n", `skillsync.lock:4:13: commit "main" of source a is not a full commit id`},
		{"sources:\n  - name: a\n    git: x\n    commit: " + commitA + "\n    skills: {s: md5:00}\n", `skill "s" of source a is locked to "md5:00"`},
		{"sources:\n  - name: a\n    git: x\n    commit: " + commitA + "\n    skills: {}\n  - name: a\n    git: x\n    commit: " + commitA + "\n    skills: {}\n", "source a is locked twice"},
		{"sources: [{name: a, extra: 1}]\n", "extra"},
	} {
		if _, ps := ParseLock(LockName, []byte(bad.lock)); !strings.Contains(ps.Error(), bad.want) {
			t.Errorf("ParseLock(%q) = %v, want %q", bad.lock, ps, bad.want)
		}
	}
}

func TestIndexSourcesAreDeclaredAndLockedApart(t *testing.T) {
	config := func(source string) string {
		return "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  sources:\n    - name: docs\n" + source
	}
	for source, want := range map[string]string{
		"      index: https://d.example.com/i.json\n      git: https://g.example.com/x.git\n": "source docs has more than one of git, index and oci",
		"      index: https://d.example.com/i.json\n      ref: v1\n":                          "source docs is not a git repository, so it has no ref or path",
		"      index: http://d.example.com/i.json\n":                                          "is not https://",
		"      index: https://me@d.example.com/i.json\n":                                      "carries a user or token",
		"      include: [a]\n": "the git remote is empty",
	} {
		root := workspace(t, map[string]string{ConfigName: config(source)})
		_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, fakeSources{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", source, err, want)
		}
	}
	digest := SkillDigest(sha256.Sum256([]byte("x")))
	good := LockedSource{Name: "docs", Index: "https://d.example.com/i.json", Digest: digest,
		Artifacts: map[string]Artifact{"a": {Type: ArtifactArchive, URL: "https://d.example.com/a.tar.gz", Digest: digest}},
		Skills:    map[string]string{"a": digest}}
	data := FormatLock(Lock{Sources: []LockedSource{good}})
	back, ps := ParseLock(LockName, data)
	if len(ps) > 0 {
		t.Fatalf("ParseLock(FormatLock) = %v\n%s", ps, data)
	}
	if got, _ := back.Named("docs"); got.Pin() != good.Pin() || got.Digest != digest || got.Artifacts["a"] != good.Artifacts["a"] || !got.Declares(RemoteSource{Name: "docs", Index: good.Index}) {
		t.Errorf("read back as %+v", got)
	}
	for url, want := range map[string]string{
		"http://tok:s3cret@192.0.2.2/a.md": "carries a user or token",
		"http://192.0.2.2/a.md":            "is not https://",
		"file:///etc/passwd":               "names no host",
	} {
		edited := good
		edited.Artifacts = map[string]Artifact{"a": {Type: ArtifactSkillMD, URL: url, Digest: digest}}
		_, ps := ParseLock(LockName, FormatLock(Lock{Sources: []LockedSource{edited}}))
		if !strings.Contains(ps.Error(), want) || strings.Contains(ps.Error(), "s3cret") {
			t.Errorf("a lock naming the artifact %s: %v, want %q", url, ps, want)
		}
	}
	noArtifact := good
	noArtifact.Artifacts = nil
	if _, ps := ParseLock(LockName, FormatLock(Lock{Sources: []LockedSource{noArtifact}})); !strings.Contains(ps.Error(), "skill a of source docs has no artifact") {
		t.Errorf("a locked index skill without its artifact: %v", ps)
	}
}

func TestOCISourcesAreDeclaredAndLockedApart(t *testing.T) {
	config := func(source string) string {
		return "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  sources:\n    - name: catalog\n" + source
	}
	for source, want := range map[string]string{
		"      oci: oci://r.example.com/acme/skills:1\n":                               "has a scheme; write REGISTRY/REPOSITORY:TAG, without oci://",
		"      oci: https://tok:s3cret@r.example.com/acme/skills:1\n":                  "has a scheme",
		"      oci: tok:s3cret@r.example.com/acme/skills:1\n":                          "names a user or token before its registry",
		"      oci: tok:s3cret@r.example.com/acme/skills@sha256:" + hex64("ab") + "\n": "names a user or token before its registry",
		"      oci: r.example.com/Acme/Skills:1\n":                                     "is not REGISTRY/REPOSITORY:TAG",
		"      oci: r.example.com/acme/skills@md5:00\n":                                "is not REGISTRY/REPOSITORY:TAG",
		"      oci: r.example.com/acme/skills:1\n      ref: v1\n":                      "source catalog is not a git repository, so it has no ref or path",
		"      oci: r.example.com/acme/skills:1\n      git: https://g.x/x\n":           "has more than one of git, index and oci",
		"      oci: \"r.example.com/acme/skills:1\\n\"\n":                              "holds a space or a control character",
	} {
		root := workspace(t, map[string]string{ConfigName: config(source)})
		_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, fakeSources{})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: err = %v, want %q", source, err, want)
		}
	}
	for ref, want := range map[string]OCIReference{
		"r.example.com/acme/skills":                  {Registry: "r.example.com", Repository: "acme/skills", Reference: "latest"},
		"r.example.com:5000/acme/skills:2.0":         {Registry: "r.example.com:5000", Repository: "acme/skills", Reference: "2.0"},
		"127.0.0.1:5000/skills:1":                    {Registry: "127.0.0.1:5000", Repository: "skills", Reference: "1", PlainHTTP: true},
		"[::1]:5000/skills:1":                        {Registry: "[::1]:5000", Repository: "skills", Reference: "1", PlainHTTP: true},
		"localhost:5000/skills:1":                    {Registry: "localhost:5000", Repository: "skills", Reference: "1"},
		"r.example.com/skills@sha256:" + hex64("ab"): {Registry: "r.example.com", Repository: "skills", Reference: "sha256:" + hex64("ab")},
	} {
		got, err := ParseOCIReference(ref)
		if err != nil || got != want {
			t.Errorf("ParseOCIReference(%q) = %+v, %v, want %+v", ref, got, err, want)
		}
	}
	digest := SkillDigest(sha256.Sum256([]byte("x")))
	good := LockedSource{Name: "catalog", OCI: "r.example.com/acme/skills:1", Digest: digest, Skills: map[string]string{"a": digest}}
	back, ps := ParseLock(LockName, FormatLock(Lock{Sources: []LockedSource{good}}))
	if got, _ := back.Named("catalog"); len(ps) > 0 || got.Pin() != digest || got.PinLabel() != "manifest "+digest || !got.Declares(RemoteSource{Name: "catalog", OCI: good.OCI}) {
		t.Errorf("read back as %+v, %v", got, ps)
	}
	if got, _ := back.Named("catalog"); got.Declares(RemoteSource{Name: "catalog", OCI: "r.example.com/acme/skills:2"}) {
		t.Error("a lock of tag 1 declares tag 2")
	}
	for _, edit := range []struct {
		source LockedSource
		want   string
	}{
		{LockedSource{Name: "catalog", OCI: good.OCI, Digest: "latest", Skills: good.Skills}, `digest "latest" of source catalog is not a sha256: digest`},
		{LockedSource{Name: "catalog", OCI: "oci://r.example.com/x:1", Digest: digest, Skills: good.Skills}, "has a scheme"},
		{LockedSource{Name: "catalog", OCI: good.OCI, Index: "https://d.example.com/i.json", Digest: digest, Skills: good.Skills}, "not one of git, index and oci"},
	} {
		if _, ps := ParseLock(LockName, FormatLock(Lock{Sources: []LockedSource{edit.source}})); !strings.Contains(ps.Error(), edit.want) {
			t.Errorf("a lock of %+v: %v, want %q", edit.source, ps, edit.want)
		}
	}
}

func hex64(pair string) string { return strings.Repeat(pair, 32) }

func TestNamesOneInTwoUnicodeFormsAreRefused(t *testing.T) {
	composed, decomposed := "caf\u00e9.md", "cafe\u0301.md"
	files := skillFiles("deploy", "Deploy.", SourceFile{Path: composed, Data: []byte("a")}, SourceFile{Path: decomposed, Data: []byte("b")})
	_, ps := SourceSkills(RemoteSource{Name: "team"}, files)
	if !strings.Contains(ps.Error(), "are one name written in two Unicode forms") {
		t.Errorf("two forms of one name = %v", ps)
	}
	files = skillFiles("deploy", "Deploy.", SourceFile{Path: "Notes.md", Data: []byte("a")}, SourceFile{Path: "notes.md", Data: []byte("b")})
	if _, ps := SourceSkills(RemoteSource{Name: "team"}, files); !strings.Contains(ps.Error(), "Notes.md and notes.md differ only in case") {
		t.Errorf("two cases of one name = %v", ps)
	}
}

func TestASourcesPathPrintsAsItself(t *testing.T) {
	for p, want := range map[string]bool{
		"registry/caps.yaml":      true,
		"skills/deploy/run.sh":    true,
		"skills/café/notes.md":    true,
		".":                       false,
		"":                        false,
		"../evil":                 false,
		"a//b":                    false,
		"/etc/passwd":             false,
		`a\b`:                     false,
		"a\n  - removed all.yaml": false,
		"a\r.yaml":                false,
		"a\tb":                    false,
		"a\x1b[2J.yaml":           false,
		"a\u0085.yaml":            false,
		"a\u2028.yaml":            false,
		"evil\u202egnp.yaml":      false,
		"\xff.yaml":               false,
	} {
		if got := ValidSourcePath(p); got != want {
			t.Errorf("ValidSourcePath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestAPositionInAFileNamedWithALineBreakPrintsOnOneLine(t *testing.T) {
	for _, tc := range []struct {
		pos  Position
		want string
	}{
		{Position{File: "registry/caps.yaml", Line: 3, Column: 5}, "registry/caps.yaml:3:5"},
		{Position{File: "skills/café/a b.md"}, "skills/café/a b.md"},
		{Position{File: "skills/deploy/a\n  - removed everything.md"}, `"skills/deploy/a\n  - removed everything.md"`},
		{Position{File: "a\tb.yaml", Line: 2}, `"a\tb.yaml":2`},
		// Other control characters are escaped where the message is written.
		{Position{File: "a\x1b[31m.yaml", Line: 2}, "a\x1b[31m.yaml:2"},
	} {
		if got := tc.pos.String(); got != tc.want {
			t.Errorf("%#v prints %s, want %s", tc.pos, got, tc.want)
		}
	}
}
