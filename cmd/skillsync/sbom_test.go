package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/gitremote"
)

// cycloneDXSchema compiles the CycloneDX 1.6 JSON Schema that the
// cyclonedx-go module ships, from the module cache.
func cycloneDXSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/CycloneDX/cyclonedx-go").Output()
	if err != nil {
		t.Fatalf("go list the cyclonedx-go module: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "schema")
	c := jsonschema.NewCompiler()
	for name, file := range map[string]string{"spdx.schema.json": "spdx.schema.json", "jsf-0.82.schema.json": "jsf-0.82.schemax.json"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("http://cyclonedx.org/schema/"+name, doc); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "bom-1.6.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("http://cyclonedx.org/schema/bom-1.6.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("http://cyclonedx.org/schema/bom-1.6.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTheBillOfMaterialsNamesEverySourceAndSkill prints the SBOM of a
// workspace with a git source (a skill and a registry file from it) and its
// own skill and capability: a valid CycloneDX 1.6 document that pins the
// source by its commit and every skill by its digest, the same at every run.
func TestTheBillOfMaterialsNamesEverySourceAndSkill(t *testing.T) {
	// Before HOME moves, which moves the go command's module cache.
	schema := cycloneDXSchema(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u := gitremote.New(t)
	commit := u.Commit(t, "main", map[string]string{
		"skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy.\n---\nDeploy.\n",
		"registry/tickets.yaml":  ticketsCatalog,
	})
	for _, kv := range u.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	ws := t.TempDir()
	testkit.WriteFiles(t, ws, map[string]string{
		"skillsync.yaml": "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [own.yaml]\n  skillDirs: [skills/*]\n  targets: [claude-code]\n" +
			"  sources:\n    - name: team\n      git: " + u.URL + "\n      path: skills\n      registry: [registry/*.yaml]\n",
		"own.yaml":              strings.NewReplacer("tickets.create", "notes.add", "alias: ticket", "alias: note").Replace(ticketsCatalog),
		"skills/greet/SKILL.md": "---\nname: greet\ndescription: Greet.\n---\nHi.\n",
	})
	run := runIn(t, ws)
	run(exitOK, "update", "--yes")
	out := run(exitOK, "sbom")
	if again := run(exitOK, "sbom"); again != out {
		t.Error("two runs printed two documents")
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Errorf("the SBOM is no valid CycloneDX 1.6: %v\n%s", err, out)
	}
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(strings.NewReader(out), cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var walk func([]cdx.Component)
	walk = func(cs []cdx.Component) {
		for _, c := range cs {
			v := string(c.Type) + " " + c.Version
			if c.Hashes != nil {
				v += " " + (*c.Hashes)[0].Value[:8]
			}
			got[c.BOMRef] = v
			if c.Components != nil {
				walk(*c.Components)
			}
		}
	}
	walk(*bom.Components)
	for ref, want := range map[string]string{
		"source:team":                            "library " + commit,
		"source:team/skill:deploy":               "data ",
		"source:team/file:registry/tickets.yaml": "file ",
		"skill:greet":                            "data ",
		"capability:notes.add":                   "data ",
	} {
		if !strings.HasPrefix(got[ref], want) {
			t.Errorf("%s = %q, want it to start %q", ref, got[ref], want)
		}
	}
	if _, ok := got["capability:tickets.create"]; ok {
		t.Error("the source's capability is listed as the workspace's own")
	}
	if deps := (*bom.Dependencies)[0].Dependencies; deps == nil || len(*deps) != 3 {
		t.Error("the workspace depends on nothing")
	}
}
