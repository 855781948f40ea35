package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	testkit.WriteFiles(t, root, files)
	return root
}

const config = "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.json, registry/*.yaml]\n  mcp: {server: s}\n"

// yamlOnlyConfig is config for a registry of YAML files only.
var yamlOnlyConfig = strings.Replace(config, "registry/*.json, ", "", 1)

func TestLoadReadsJSON(t *testing.T) {
	root := workspace(t, map[string]string{
		ConfigName: config,
		"registry/caps.json": `{
  "apiVersion": "skillsync/v1", "kind": "Capability",
  "metadata": {"name": "notes.add"},
  "spec": {"title": "Add a note", "effect": "write",
    "input": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    "mcp": {"tool": "notes_add"}, "skill": {"alias": "note", "argument": "text"}}
}`,
		"registry/empty.yaml": "---\n# nothing here yet\n---\n",
	})
	reg, err := Load(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.Capabilities) != 1 || reg.Capabilities[0].Spec.Skill.Alias != "note" || reg.Capabilities[0].MCPServer(reg.Config) != "s" {
		t.Errorf("loaded %+v", reg.Capabilities)
	}
	if strings.Join(reg.Files, ",") != "registry/caps.json,registry/empty.yaml" {
		t.Errorf("files = %v", reg.Files)
	}
}

func TestLoadJSONDuplicateKeyHasPosition(t *testing.T) {
	root := workspace(t, map[string]string{
		ConfigName:           config,
		"registry/caps.json": "{\"apiVersion\": \"skillsync/v1\",\n \"kind\": \"Profile\",\n \"metadata\": {\"name\": \"p\"},\n \"kind\": \"Profile\"}\n",
		"registry/x.yaml":    "",
	})
	_, err := Load(workspacefs.OS{}, root)
	if err == nil || !strings.Contains(err.Error(), "registry/caps.json:4:2: duplicate key kind") {
		t.Errorf("error = %v", err)
	}
}

func TestLoadMissingWorkspaceIsAProblem(t *testing.T) {
	_, err := Load(workspacefs.OS{}, filepath.Join(t.TempDir(), "nope"))
	if _, ok := err.(Problems); !ok || !strings.Contains(err.Error(), "pass --workspace") {
		t.Errorf("error = %#v", err)
	}
}

func TestFindRootWalksUp(t *testing.T) {
	root := workspace(t, map[string]string{ConfigName: config, "a/b/c/.keep": ""})
	got, err := FindRoot(filepath.Join(root, "a/b/c"))
	if err != nil || got != root {
		t.Errorf("FindRoot = %q, %v; want %q", got, err, root)
	}
	if _, err := FindRoot(t.TempDir()); err == nil || !strings.Contains(err.Error(), "--workspace") {
		t.Errorf("outside any workspace: %v", err)
	}
}

func TestReservedNamesFollowEnabledTargets(t *testing.T) {
	capability := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: pulls.open}\nspec:\n  title: Open a pull request\n  effect: write\n" +
		"  input: {type: object, properties: {text: {type: string}}}\n  mcp: {tool: pr}\n  skill: {alias: pr, argument: text}\n"
	for targets, reserved := range map[string]bool{"[claude-code]": false, "[qwen-code]": true, "[agents]": true} {
		root := workspace(t, map[string]string{
			ConfigName:        strings.Replace(config, "spec:\n", "spec:\n  targets: "+targets+"\n", 1),
			"registry/c.yaml": capability,
		})
		_, err := Load(workspacefs.OS{}, root)
		if got := err != nil && strings.Contains(err.Error(), `alias "pr" is reserved by Qwen Code`); got != reserved {
			t.Errorf("targets %s: reserved = %v, want %v (err %v)", targets, got, reserved, err)
		}
	}
}

// A skill directory named after a Windows device cannot exist on Windows, on any
// operating system the workspace is used on; a name that only starts like one can.
func TestWindowsDeviceNamesAreRefused(t *testing.T) {
	for alias, refused := range map[string]bool{"con": true, "nul": true, "aux": true, "prn": true, "com1": true, "lpt9": true, "console": false, "com10": false, "nullify": false} {
		capability := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: devices.open}\nspec:\n  title: Open\n  effect: read\n" +
			"  input: {type: object, properties: {text: {type: string}}}\n  mcp: {tool: open}\n  skill: {alias: " + alias + ", argument: text}\n"
		root := workspace(t, map[string]string{ConfigName: yamlOnlyConfig, "registry/c.yaml": capability})
		_, err := Load(workspacefs.OS{}, root)
		got := err != nil && strings.Contains(err.Error(), `registry/c.yaml:9:`) && strings.Contains(err.Error(), `alias "`+alias+`" is a Windows device name`)
		if got != refused || (!refused && err != nil) {
			t.Errorf("alias %s: refused = %v, want %v (err %v)", alias, got, refused, err)
		}
	}
}

func TestUnchangedNoticesEveryInputFile(t *testing.T) {
	example := testkit.Fixture("example")
	changes := map[string]func(root string) error{
		"nothing": func(string) error { return nil },
		"config": func(root string) error {
			return appendTo(filepath.Join(root, ConfigName), "# edited\n")
		},
		"a registry file": func(root string) error {
			return appendTo(filepath.Join(root, "registry/journal.yaml"), "# edited\n")
		},
		"a bodyFile": func(root string) error {
			return appendTo(filepath.Join(root, "skills/qwencode-viz.md"), "more\n")
		},
		"a new file the glob matches": func(root string) error {
			return os.WriteFile(filepath.Join(root, "registry/zz-new.yaml"), []byte("# empty\n"), 0o644)
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS(example)); err != nil {
				t.Fatal(err)
			}
			reg, err := Load(workspacefs.OS{}, root)
			if err != nil {
				t.Fatal(err)
			}
			if err := change(root); err != nil {
				t.Fatal(err)
			}
			if got, want := Unchanged(reg), name == "nothing"; got != want {
				t.Errorf("Unchanged = %v, want %v", got, want)
			}
		})
	}
}

func appendTo(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// A loaded registry keeps neither the bytes nor the node trees of its files: a
// position asked for after loading comes from the file read again, and only while
// it still holds what was loaded; otherwise the position names the file alone.
func TestPositionsAfterLoadingComeFromTheUnchangedFile(t *testing.T) {
	caps := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: first}\nspec: {title: First, effect: read}\n" +
		"---\napiVersion: skillsync/v1\nkind: Capability\nmetadata:\n  name: second\nspec: {title: Second, effect: read}\n"
	for _, edited := range []bool{false, true} {
		root := workspace(t, map[string]string{ConfigName: strings.Replace(config, "registry/*.json, ", "", 1), "registry/caps.yaml": caps})
		reg, err := Load(workspacefs.OS{}, root)
		if err != nil {
			t.Fatal(err)
		}
		if edited {
			if err := appendTo(filepath.Join(root, "registry/caps.yaml"), "# edited\n"); err != nil {
				t.Fatal(err)
			}
		}
		pos := reg.Capabilities[1].Pos()
		want := Position{File: "registry/caps.yaml", Line: 9, Column: 9}
		if edited {
			want = Position{File: "registry/caps.yaml"}
		}
		if pos != want {
			t.Errorf("edited=%v: position of the second capability = %+v, want %+v", edited, pos, want)
		}
	}
}

// What a record of the applied sources reads must be what was loaded: a file saved
// again, removed or replaced by a directory since is ErrSourceChanged.
func TestReadSourceRefusesAFileChangedSinceLoading(t *testing.T) {
	caps := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: first}\nspec: {title: First, effect: read}\n"
	cfg := strings.Replace(config, "registry/*.json, ", "", 1)
	changes := map[string]func(file string) error{
		"saved again": func(file string) error { return appendTo(file, "# edited\n") },
		"removed":     os.Remove,
		"a directory": func(file string) error {
			return errors.Join(os.Remove(file), os.Mkdir(file, 0o755))
		},
	}
	for name, change := range changes {
		root := workspace(t, map[string]string{ConfigName: cfg, "registry/caps.yaml": caps})
		reg, err := Load(workspacefs.OS{}, root)
		if err != nil {
			t.Fatal(err)
		}
		if data, err := ReadSource(reg, "registry/caps.yaml"); err != nil || string(data) != caps {
			t.Fatalf("ReadSource before any change = %q, %v", data, err)
		}
		if err := change(filepath.Join(root, "registry/caps.yaml")); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadSource(reg, "registry/caps.yaml"); !errors.Is(err, ErrSourceChanged) {
			t.Errorf("%s: ReadSource = %v, want ErrSourceChanged", name, err)
		}
	}
}

// A registry file saved on Windows, with CRLF line endings and a UTF-8 byte order
// mark, loads as the same file with LF endings does, and its errors name the
// same lines.
func TestCRLFAndByteOrderMark(t *testing.T) {
	capability := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: notes.add}\nspec:\n  title: Add a note\n  effect: read\n" +
		"  input: {type: object, properties: {text: {type: string}}}\n  mcp: {tool: note}\n  skill: {alias: note, argument: text}\n"
	windows := func(s string) string { return "\ufeff" + strings.ReplaceAll(s, "\n", "\r\n") }
	reg, err := Load(workspacefs.OS{}, workspace(t, map[string]string{ConfigName: windows(yamlOnlyConfig), "registry/c.yaml": windows(capability)}))
	if err != nil {
		t.Fatalf("a CRLF file with a byte order mark: %v", err)
	}
	if len(reg.Capabilities) != 1 || reg.Capabilities[0].Spec.Title != "Add a note" || reg.Capabilities[0].Spec.Skill.Alias != "note" {
		t.Errorf("loaded %+v", reg.Capabilities)
	}
	broken := strings.Replace(capability, "effect: read", "effect: reed", 1)
	_, lfErr := Load(workspacefs.OS{}, workspace(t, map[string]string{ConfigName: yamlOnlyConfig, "registry/c.yaml": broken}))
	_, crlfErr := Load(workspacefs.OS{}, workspace(t, map[string]string{ConfigName: windows(yamlOnlyConfig), "registry/c.yaml": windows(broken)}))
	if lfErr == nil || crlfErr == nil || !strings.Contains(lfErr.Error(), "registry/c.yaml:6:") || crlfErr.Error() != lfErr.Error() {
		t.Errorf("errors differ:\n  LF:   %v\n  CRLF: %v", lfErr, crlfErr)
	}
}

// Capabilities that share an input schema are each judged by their own
// argument, at their own place, though the schema is decoded once.
func TestCapabilitiesSharingAnInputAreJudgedByTheirOwnArgument(t *testing.T) {
	capability := func(name, argument string) string {
		return "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: notes." + name + "}\nspec:\n  title: Notes\n  effect: read\n" +
			"  input: {type: object, properties: {text: {type: string}, count: {type: integer}}}\n  mcp: {tool: " + name + "}\n" +
			"  skill: {alias: " + name + ", argument: " + argument + "}\n"
	}
	root := workspace(t, map[string]string{
		ConfigName: yamlOnlyConfig,
		"registry/c.yaml": strings.Join([]string{
			capability("first", "text"), capability("second", "txt"), capability("third", "count"), capability("fourth", "text"), capability("fifth", "txt"),
		}, "---\n"),
	})
	_, err := Load(workspacefs.OS{}, root)
	var problems Problems
	if !errors.As(err, &problems) {
		t.Fatalf("err = %v, want the problems of three arguments", err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, fmt.Sprintf("%d: %s (%s)", p.Pos.Line, p.Message, p.Hint))
	}
	want := []string{
		`19: argument "txt" is not a property of input (did you mean "text"?)`,
		`29: argument "count" has type integer, not string (typed text can only fill a property of type string)`,
		`49: argument "txt" is not a property of input (did you mean "text"?)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
