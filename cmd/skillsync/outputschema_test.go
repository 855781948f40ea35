package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
)

var updateSchemas = flag.Bool("update-schemas", false, "write schema/output again from the -o json types")

// outputSchemaDir holds a JSON Schema per kind of -o json document.
const outputSchemaDir = "../../schema/output"

// outputKinds are the -o json documents by kind, each with the type it is
// printed from and its schema's file.
var outputKinds = []struct {
	kind, file string
	of         any
}{
	{kindReconcileResult, "reconcile-result.json", reconcileJSON{}},
	{kindValidation, "validation.json", validationJSON{}},
	{kindStatus, "status.json", statusJSON{}},
	{kindExplanation, "explanation.json", explanationJSON{}},
	{kindSkillList, "skill-list.json", skillListJSON{}},
	{kindProfileList, "profile-list.json", profileListJSON{}},
	{kindVersion, "version.json", versionJSON{}},
	{kindOutdated, "outdated-report.json", outdatedJSON{}},
	{kindError, "error.json", errorJSON{}},
}

// The committed output schemas must be what the types give now: run
// `go test ./cmd/skillsync -run OutputSchemas -update-schemas` after changing one.
func TestOutputSchemasAreCurrent(t *testing.T) {
	for file, want := range generateOutputSchemas(t) {
		path := filepath.Join(outputSchemaDir, file)
		got, err := os.ReadFile(path)
		if err == nil && bytes.Equal(got, want) {
			continue
		}
		if !*updateSchemas {
			t.Errorf("%s is stale (or missing); run go test ./cmd/skillsync -run OutputSchemas -update-schemas", path)
			continue
		}
		if err := os.MkdirAll(outputSchemaDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// generateOutputSchemas reflects each kind's type: every key it prints without
// omitempty is required, no other key is allowed, apiVersion and kind are the
// document's own, and a field holding one of a few tokens says which.
func generateOutputSchemas(t *testing.T) map[string][]byte {
	t.Helper()
	r := &jsonschema.Reflector{DoNotReference: true, Anonymous: true}
	out := map[string][]byte{}
	for _, k := range outputKinds {
		s := r.Reflect(k.of)
		s.Title = "skillsync " + k.kind
		s.Description = "The document skillsync prints as " + k.kind + " for -o json, and as YAML for -o yaml."
		documentKind(s, k.kind)
		switch k.kind {
		case kindValidation:
			// The counts are there only for a valid workspace.
			s.Required = slices.DeleteFunc(s.Required, func(key string) bool {
				return !slices.Contains([]string{"apiVersion", "kind", "valid", "exitCode", "problems"}, key)
			})
		case kindReconcileResult:
			actions := []any{}
			for _, a := range []plan.Action{plan.Create, plan.Update, plan.Delete, plan.Cleanup, plan.Conflict} {
				actions = append(actions, string(a))
			}
			s.Properties.Value("changes").Items.Properties.Value("action").Enum = actions
		case kindExplanation:
			enumTargetStates(s)
		case kindSkillList:
			item := s.Properties.Value("items").Items
			documentKind(item, kindExplanation)
			enumTargetStates(item)
		case kindProfileList:
			documentKind(s.Properties.Value("items").Items, kindProfile)
		}
		problemSeverities(s)
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		out[k.file] = append(data, '\n')
	}
	return out
}

func documentKind(s *jsonschema.Schema, kind string) {
	s.Properties.Value("apiVersion").Const = outputAPIVersion
	s.Properties.Value("kind").Const = kind
}

// problemSeverities gives each problem's severity its one value, wherever a
// document holds problems.
func problemSeverities(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Properties != nil {
		if problems, ok := s.Properties.Get("problems"); ok {
			problems.Items.Properties.Value("severity").Enum = []any{"error"}
		}
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			problemSeverities(pair.Value)
		}
	}
	problemSeverities(s.Items)
}

func enumTargetStates(explanation *jsonschema.Schema) {
	var states []any
	for _, st := range targetStateTokens {
		states = append(states, st)
	}
	explanation.Properties.Value("targets").Items.Properties.Value("state").Enum = states
}

// Every -o json document the commands print on the example workspace, in sync,
// with changes, with a conflict and with invalid input, is valid by its kind's
// schema, and -o yaml prints the same document.
func TestOutputMatchesSchemas(t *testing.T) {
	t.Setenv("SKILLSYNC_PROFILE", "")
	schemas := compileOutputSchemas(t)
	every := [][]string{
		{"validate"}, {"reconcile", "--check"}, {"reconcile", "--dry-run"}, {"diff"}, {"status"}, {"list"},
		{"explain", "intent"}, {"explain", "nosuch"}, {"profile", "list"}, {"version"}, {"outdated"},
	}
	check := func(t *testing.T, ws string, commands [][]string, wantKinds map[string]string) {
		t.Helper()
		for _, command := range commands {
			name := strings.Join(command, " ")
			_, stdout, stderr := runCLI(t, ws, append(command, "-o", "json")...)
			var doc any
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Errorf("%s -o json: not JSON: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout, stderr)
				continue
			}
			kind, _ := doc.(map[string]any)["kind"].(string)
			if want, ok := wantKinds[name]; ok && kind != want {
				t.Errorf("%s -o json: kind %q, want %q", name, kind, want)
			}
			s, ok := schemas[kind]
			if !ok {
				t.Errorf("%s -o json: kind %q has no schema", name, kind)
				continue
			}
			inst, err := validator.UnmarshalJSON(strings.NewReader(stdout))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(inst); err != nil {
				t.Errorf("%s -o json: the %s schema refuses it: %v\n%s", name, kind, err, stdout)
			}
			_, yamlOut, _ := runCLI(t, ws, append(command, "-o", "yaml")...)
			var fromYAML any
			if err := yaml.Unmarshal([]byte(yamlOut), &fromYAML); err != nil {
				t.Errorf("%s -o yaml: not YAML: %v\n%s", name, err, yamlOut)
			} else if !sameDocument(doc, fromYAML) {
				t.Errorf("%s -o yaml is another document than -o json:\n%s\n%s", name, yamlOut, stdout)
			}
		}
	}
	t.Run("with changes", func(t *testing.T) {
		check(t, testkit.ExampleWorkspace(t), every, map[string]string{
			"reconcile --check": kindReconcileResult, "diff": kindReconcileResult, "list": kindSkillList, "explain nosuch": kindError,
		})
	})
	t.Run("in sync", func(t *testing.T) {
		check(t, reconciledExample(t), every, map[string]string{"status": kindStatus, "validate": kindValidation})
	})
	t.Run("with a conflict", func(t *testing.T) {
		ws := testkit.ExampleWorkspace(t)
		writeFile(t, filepath.Join(ws, ".claude", "skills", "intent", "SKILL.md"), "---\nname: intent\ndescription: mine\n---\n")
		check(t, ws, every, map[string]string{"reconcile --check": kindReconcileResult, "explain intent": kindExplanation})
		if code, _, _ := runCLI(t, ws, "reconcile", "--check", "-o", "json"); code != exitConflicts {
			t.Errorf("reconcile --check: exit %d, want %d: the case has no conflict", code, exitConflicts)
		}
	})
	t.Run("without a workspace", func(t *testing.T) {
		check(t, t.TempDir(), every, map[string]string{
			"validate": kindValidation, "reconcile --check": kindReconcileResult, "status": kindError, "list": kindError,
			"version": kindVersion,
		})
	})
	t.Run("with invalid input", func(t *testing.T) {
		ws := testkit.ExampleWorkspace(t)
		writeFile(t, filepath.Join(ws, "registry", "broken.yaml"), "apiVersion: skillsync/v1\nkind: Capability\nid: x\n")
		check(t, ws, every, map[string]string{
			"validate": kindValidation, "reconcile --check": kindReconcileResult, "status": kindError, "list": kindError,
			"explain intent": kindError, "profile list": kindError,
		})
		if code, _, _ := runCLI(t, ws, "validate", "-o", "json"); code != exitInvalid {
			t.Errorf("validate: exit %d, want %d: the case has no invalid input", code, exitInvalid)
		}
	})
}

// sameDocument compares a document decoded from JSON with one decoded from YAML,
// whose numbers are ints rather than float64s.
func sameDocument(fromJSON, fromYAML any) bool {
	a, errA := json.Marshal(fromJSON)
	b, errB := json.Marshal(fromYAML)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

func compileOutputSchemas(t *testing.T) map[string]*validator.Schema {
	t.Helper()
	c := validator.NewCompiler()
	out := map[string]*validator.Schema{}
	for _, k := range outputKinds {
		abs, err := filepath.Abs(filepath.Join(outputSchemaDir, k.file))
		if err != nil {
			t.Fatal(err)
		}
		if out[k.kind], err = c.Compile(abs); err != nil {
			t.Fatalf("%s: %v", k.file, err)
		}
	}
	return out
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// -o yaml reads back as the JSON it was made from, keys in the same order, for
// strings that would read as another type if written plain.
func TestYAMLIsTheJSONDocument(t *testing.T) {
	tricky := []string{"", "true", "no", "Yes", "on", "y", "null", "~", "123", "1e3", "0x1F", "a: b", "- x", "#x", "line\nbreak\n", " lead", "@x", "'q'"}
	strs, err := json.Marshal(tricky)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"z": ` + string(strs) + `, "a": {"n": 1.5, "b": false, "nil": null, "empty": [], "obj": {}}}`)
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := writeDocument(&out, "yaml", json.RawMessage(data)); err != nil {
		t.Fatal(err)
	}
	var back any
	if err := yaml.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, out.String())
	}
	if !sameDocument(doc, back) {
		t.Errorf("-o yaml reads back as another document:\n%s", out.String())
	}
	if a, z := strings.Index(out.String(), "\na:"), strings.Index(out.String(), "z:"); a < 0 || z != 0 {
		t.Errorf("keys not in the JSON's order (z, then a):\n%s", out.String())
	}
	for _, word := range []string{"no", "Yes", "on", "y"} {
		if !strings.Contains(out.String(), `- "`+word+`"`) {
			t.Errorf("%q is bare, which a YAML 1.1 reader takes for a boolean:\n%s", word, out.String())
		}
	}
}
