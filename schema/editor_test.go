//go:build editor

package schema

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
)

// The yaml-language-server release the editors' YAML support is checked with: the
// server behind VS Code's YAML extension, and the one Neovim, Helix and Zed start.
// YAML_LANGUAGE_SERVER_VERSION overrides it.
const yamlLanguageServerVersion = "1.25.0"

// TestYAMLLanguageServer opens every input in yaml-language-server, with the
// schemas mapped to the files as an editor's settings map them, and reads the
// diagnostics it publishes: none for a valid file, the expected one for a broken.
func TestYAMLLanguageServer(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fileURI := func(rel string) string {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(root, filepath.FromSlash(rel)))}).String()
	}
	settings := map[string]any{"yaml": map[string]any{
		"validate":    true,
		"schemaStore": map[string]any{"enable": false}, // the catalogue is fetched from the network
		"schemas": map[string]any{
			fileURI("schema/workspace.json"): []string{"skillsync.yaml"},
			fileURI("schema/registry.json"):  []string{"registry/*.yaml"},
		},
	}}
	server := startLanguageServer(t, []string{"node", installYAMLLanguageServer(t), "--stdio"}, settings)
	server.call("initialize", map[string]any{
		"processId": os.Getpid(),
		"rootUri":   fileURI("."),
		"capabilities": map[string]any{
			"textDocument": map[string]any{"publishDiagnostics": map[string]any{}},
		},
	}, nil)
	server.notify("initialized", map[string]any{})
	server.notify("workspace/didChangeConfiguration", map[string]any{"settings": settings})

	valid := append(bundledInputs(t), acceptedInputs...)
	var broken []input
	for _, c := range brokenCases {
		broken = append(broken, c.in)
	}
	// The modeline names the schema in the file itself, as a path relative to it;
	// no setting maps these paths.
	modeline := "# yaml-language-server: $schema=../schema/registry.json\n"
	withModeline := input{"modeline/intents.yaml", modeline + readFile(t, testkit.Fixture("example/registry/intents.yaml"))}
	brokenModeline := input{"modeline/broken.yaml", modeline + capabilityHeader + "  title: Add a note\n  effect: delete\n"}

	var uris []string
	for _, in := range append(append(valid, broken...), withModeline, brokenModeline) {
		uri := fileURI(in.path)
		uris = append(uris, uri)
		server.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "yaml", "version": 1, "text": in.text,
		}})
	}
	server.settle(uris)

	// A file no schema applies to has no diagnostics either: each must be under the
	// schema its path gives it.
	schemaOf := func(uri string) []string {
		var schemas []struct{ URI string }
		server.call("yaml/get/jsonSchema", uri, &schemas)
		var out []string
		for _, s := range schemas {
			out = append(out, s.URI)
		}
		return out
	}
	for _, in := range append(valid, withModeline) {
		uri := fileURI(in.path)
		want := fileURI("schema/" + in.schemaFile())
		if got := schemaOf(uri); len(got) != 1 || got[0] != want {
			t.Errorf("%s: validated against %v, want %s", in.path, got, want)
		}
		if d := server.diagnostics[uri]; len(d) > 0 {
			t.Errorf("%s: %d diagnostics for a valid file:\n%s", in.path, len(d), diagnosticLines(d))
		}
	}
	// Hovering over a key shows its doc comment from the Go type.
	starter := fileURI("starter-example/registry/capabilities.yaml")
	var hover struct{ Contents struct{ Value string } }
	server.call("textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": starter},
		"position":     map[string]any{"line": lineIndex(t, valid, "starter-example/registry/capabilities.yaml", "  effect:"), "character": 4},
	}, &hover)
	if want := "What calling it does: read, write or destructive."; !strings.Contains(hover.Contents.Value, want) {
		t.Errorf("hover over effect shows %q, want it to hold %q", hover.Contents.Value, want)
	}

	for _, c := range append(brokenCases, brokenCase{name: "modeline", in: brokenModeline, line: 7, says: "Value is not accepted"}) {
		d := server.diagnostics[fileURI(c.in.path)]
		found := false
		for _, x := range d {
			found = found || x.line() == c.line && strings.Contains(x.Message, c.says)
		}
		if !found {
			t.Errorf("%s (%s): want a diagnostic at line %d saying %q, got:\n%s", c.name, c.in.path, c.line, c.says, diagnosticLines(d))
		}
	}
}

// lineIndex is the 0-based line of the input at path that starts with prefix.
func lineIndex(t *testing.T, inputs []input, path, prefix string) int {
	t.Helper()
	for _, in := range inputs {
		if in.path != path {
			continue
		}
		for i, line := range strings.Split(in.text, "\n") {
			if strings.HasPrefix(line, prefix) {
				return i
			}
		}
	}
	t.Fatalf("%s has no line starting with %q", path, prefix)
	return 0
}

func diagnosticLines(ds []diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// installYAMLLanguageServer installs the pinned yaml-language-server with npm into
// schema/.cache, once, and returns its executable script.
func installYAMLLanguageServer(t *testing.T) string {
	t.Helper()
	version := yamlLanguageServerVersion
	if v := os.Getenv("YAML_LANGUAGE_SERVER_VERSION"); v != "" {
		version = v
	}
	prefix, err := filepath.Abs(filepath.Join(".cache", "yaml-language-server@"+version))
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(prefix, "node_modules", "yaml-language-server")
	var manifest struct{ Version string }
	if data, err := os.ReadFile(filepath.Join(pkg, "package.json")); err != nil || json.Unmarshal(data, &manifest) != nil || manifest.Version != version {
		t.Logf("installing yaml-language-server@%s with npm into %s", version, prefix)
		if err := os.MkdirAll(prefix, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", "yaml-language-server@"+version)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install yaml-language-server@%s: %v\n%s", version, err, out)
		}
	}
	return filepath.Join(pkg, "bin", "yaml-language-server")
}
