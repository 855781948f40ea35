package registry

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

const catalogCapabilities = `apiVersion: skillsync/v1
kind: Capability
metadata: {name: tickets.create}
spec:
  title: Create a ticket
  description: Open a ticket in the tracker.
  effect: write
  input: {type: object, properties: {title: {type: string}}, required: [title]}
  cli: {command: [tickets, create]}
  skill: {alias: ticket, argument: title}
---
apiVersion: skillsync/v1
kind: Capability
metadata: {name: tickets.list}
spec:
  title: List tickets
  effect: read
  cli: {command: [tickets, list]}
---
apiVersion: skillsync/v1
kind: Profile
metadata: {name: terminal}
spec: {capabilities: [terminal.ansi]}
---
apiVersion: skillsync/v1
kind: Skill
metadata: {name: standup}
spec: {description: Write the standup note., body: List what changed since yesterday.}
`

// documentSources declares the source catalog, which takes registry/*.yaml,
// and, with two, a second source taking the same files.
func documentSources(two bool) (string, []RemoteSource) {
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  sources:\n" +
		"    - name: catalog\n      git: https://git.example.com/acme/catalog.git\n      registry: [registry/*.yaml]\n"
	specs := []RemoteSource{{Name: "catalog", Git: "https://git.example.com/acme/catalog.git", Registry: []string{"registry/*.yaml"}}}
	if two {
		config += "    - name: mirror\n      git: https://git.example.com/acme/mirror.git\n      registry: [registry/*.yaml]\n"
		specs = append(specs, RemoteSource{Name: "mirror", Git: "https://git.example.com/acme/mirror.git", Registry: []string{"registry/*.yaml"}})
	}
	return config, specs
}

// documentLock is the lock of specs as SourceSkills and SourceDocuments read
// what held holds.
func documentLock(t *testing.T, specs []RemoteSource, held fakeSources) string {
	t.Helper()
	var l Lock
	for _, src := range specs {
		sums, ps := SourceSkills(src, held[src.Name])
		docs, dps := SourceDocuments(src, held[src.Name], func(int) Position { return Position{File: ConfigName} })
		if len(ps)+len(dps) > 0 {
			t.Fatal(append(ps, dps...))
		}
		locked := LockedSource{Name: src.Name, Git: src.Git, Commit: commitA, Skills: map[string]string{}, Registry: src.Registry, Documents: docs}
		for n, s := range sums {
			locked.Skills[n] = SkillDigest(s)
		}
		l.Sources = append(l.Sources, locked)
	}
	return string(FormatLock(l))
}

func TestASourcesRegistryDocumentsJoinTheRegistry(t *testing.T) {
	config, specs := documentSources(false)
	held := fakeSources{"catalog": append(skillFiles("deploy", "Deploy."),
		SourceFile{Path: "registry/catalog.yaml", Document: true, Data: []byte(catalogCapabilities)},
		SourceFile{Path: "README.md", Document: true, Data: []byte("not taken")})}
	lock := documentLock(t, specs, held)
	if !strings.Contains(lock, "    registry:\n      - registry/*.yaml\n    documents:\n      registry/catalog.yaml: sha256:") {
		t.Fatalf("the lock does not pin the registry file:\n%s", lock)
	}
	root := workspace(t, map[string]string{ConfigName: config, LockName: lock,
		"registry/own.yaml": "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: tickets.list}\nspec: {title: Our list, effect: read, cli: {command: [our, list]}}\n"})
	reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
	if err != nil {
		t.Fatal(err)
	}
	caps := map[string]string{}
	for _, c := range reg.Capabilities {
		caps[c.ID] = c.Spec.Title + " @ " + c.Pos().String()
	}
	if caps["tickets.create"] != "Create a ticket @ catalog:registry/catalog.yaml:3:18" {
		t.Errorf("the source's capability: %q", caps["tickets.create"])
	}
	if !strings.HasPrefix(caps["tickets.list"], "Our list @ registry/own.yaml") {
		t.Errorf("the workspace's capability does not shadow the source's: %q", caps["tickets.list"])
	}
	if len(reg.Shadowed) != 1 || reg.Shadowed[0].Kind != "capability" || reg.Shadowed[0].Name != "tickets.list" || reg.Shadowed[0].At.Line != 6 {
		t.Errorf("Shadowed = %+v", reg.Shadowed)
	}
	if _, ok := reg.ProfileNamed("terminal"); !ok {
		t.Error("the source's profile is missing")
	}
	var standup *Skill
	for i, s := range reg.Skills {
		if s.Name == "standup" {
			standup = &reg.Skills[i]
		}
	}
	if standup == nil || standup.Body != "List what changed since yesterday." || standup.Origin == nil || standup.Origin.Source != "catalog" {
		t.Errorf("the source's inline skill = %+v", standup)
	}
}

func TestASourcesRegistryDocumentsAreCheckedAndPinned(t *testing.T) {
	config, specs := documentSources(false)
	doc := SourceFile{Path: "registry/catalog.yaml", Document: true, Data: []byte(catalogCapabilities)}
	held := fakeSources{"catalog": append(skillFiles("deploy", "Deploy."), doc)}
	lock := documentLock(t, specs, held)
	for _, tc := range []struct {
		name   string
		files  []SourceFile
		config string
		want   string
	}{
		{"a file changed under the lock", append(skillFiles("deploy", "Deploy."), SourceFile{Path: doc.Path, Document: true, Data: []byte(catalogCapabilities + "# more\n")}), config,
			"skillsync.yaml:6:7: registry file catalog:registry/catalog.yaml of source catalog is sha256:"},
		{"a file gone", skillFiles("deploy", "Deploy."), config, "source catalog has no registry file catalog:registry/catalog.yaml at commit"},
		{"a link", append(skillFiles("deploy", "Deploy."), SourceFile{Path: doc.Path, Document: true, Link: true}), config, "catalog:registry/catalog.yaml: a registry file of a source must be a regular file"},
		{"patterns other than locked", held["catalog"], strings.Replace(config, "      registry: [registry/*.yaml]\n", "      registry: [registry/*.yml]\n", 1), "source catalog is not in skillsync.lock as declared here"},
		{"a pattern out", held["catalog"], strings.Replace(config, "      registry: [registry/*.yaml]\n", "      registry: [../x.yaml]\n", 1), `registry pattern "../x.yaml" of source catalog is not a pattern of files inside the source`},
		{"a bad pattern", held["catalog"], strings.Replace(config, "      registry: [registry/*.yaml]\n", "      registry: [\"registry/[\"]\n", 1), `registry pattern "registry/[" of source catalog`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace(t, map[string]string{ConfigName: tc.config, LockName: lock, "registry/none.yaml": ""})
			reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, fakeSources{"catalog": tc.files})
			var ps Problems
			if !errors.As(err, &ps) || !strings.Contains(ps.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if reg != nil {
				for _, c := range reg.Capabilities {
					if c.ID == "tickets.create" {
						t.Error("the source's capability was kept despite the problem")
					}
				}
			}
		})
	}
	// A Skill of a source's file with its body elsewhere.
	withBodyFile := append(skillFiles("deploy", "Deploy."), SourceFile{Path: doc.Path, Document: true,
		Data: []byte("apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: standup}\nspec: {description: Standup., bodyFile: standup.md}\n")})
	held = fakeSources{"catalog": withBodyFile}
	root := workspace(t, map[string]string{ConfigName: config, LockName: documentLock(t, specs, held), "registry/none.yaml": ""})
	_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
	if err == nil || !strings.Contains(err.Error(), "catalog:registry/catalog.yaml:4:41: skill standup of a source has its bodyFile in another file") {
		t.Errorf("a source's Skill with a bodyFile: %v", err)
	}
	// A pattern that takes nothing is an update problem.
	if _, ps := SourceDocuments(RemoteSource{Name: "catalog", Registry: []string{"docs/*.yaml"}}, withBodyFile, func(j int) Position { return Position{File: ConfigName, Line: 9 + j} }); !strings.Contains(ps.Error(), `registry pattern "docs/*.yaml" of source catalog matches no file`) {
		t.Errorf("a pattern matching nothing: %v", ps)
	}
	// An edited lock naming a file its patterns do not take.
	edited := LockedSource{Name: "catalog", Git: specs[0].Git, Commit: commitA, Skills: map[string]string{}, Registry: []string{"registry/*.yaml"},
		Documents: map[string]string{"../../etc/passwd": SkillDigest(sha256.Sum256(nil))}}
	if _, ps := ParseLock(LockName, FormatLock(Lock{Sources: []LockedSource{edited}})); !strings.Contains(ps.Error(), `document "../../etc/passwd" of source catalog is locked to`) {
		t.Errorf("a lock naming a document out of the source: %v", ps)
	}
}

func TestTwoSourcesDeclaringOneNameClash(t *testing.T) {
	config, specs := documentSources(true)
	doc := []SourceFile{{Path: "registry/catalog.yaml", Document: true, Data: []byte(catalogCapabilities)}}
	held := fakeSources{"catalog": doc, "mirror": doc}
	root := workspace(t, map[string]string{ConfigName: config, LockName: documentLock(t, specs, held), "registry/none.yaml": ""})
	reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"skillsync.yaml:6:7: capability tickets.create comes from source catalog and from source mirror",
		"skillsync.yaml:9:7: capability tickets.create comes from source catalog and from source mirror",
		"profile terminal comes from source catalog and from source mirror", "skill standup comes from source catalog and from source mirror"} {
		if !strings.Contains(ps.Error(), want) {
			t.Errorf("problems do not say %q:\n%s", want, ps)
		}
	}
	for _, c := range reg.Capabilities {
		if c.ID == "tickets.create" {
			t.Errorf("a capability two sources declare was kept: %s", c.Pos())
		}
	}
}

// A source's capability of an MCP tool the workspace records itself is
// shadowed by the workspace's recording, never the other way round.
func TestASourcesMCPCapabilityIsShadowedByTheWorkspacesRecording(t *testing.T) {
	text := `{type: object, properties: {summary: {type: string}}, required: [summary]}`
	config := mcpConfig("{tool: open_ticket}") + "  sources:\n    - name: catalog\n      git: https://git.example.com/acme/catalog.git\n      registry: [registry/*.yaml]\n"
	specs := []RemoteSource{{Name: "catalog", Git: "https://git.example.com/acme/catalog.git", Registry: []string{"registry/*.yaml"}}}
	theirs := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: org.open}\nspec:\n  title: Theirs\n  effect: write\n  input: " + text + "\n  mcp: {server: tracker, tool: open_ticket}\n"
	held := fakeSources{"catalog": {{Path: "registry/org.yaml", Document: true, Data: []byte(theirs)}}}
	root := workspace(t, map[string]string{ConfigName: config, LockName: documentLock(t, specs, held),
		"registry/mcp-tracker.yaml": recordedTool("open_ticket", text)})
	reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range reg.Capabilities {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, " ") != "tracker.open_ticket" {
		t.Errorf("capabilities = %v, want the workspace's recording alone", ids)
	}
	if len(reg.Shadowed) != 1 || reg.Shadowed[0].Name != "org.open" || reg.Shadowed[0].Kind != "capability" {
		t.Errorf("Shadowed = %+v", reg.Shadowed)
	}
}
