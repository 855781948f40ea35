package adopt

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
	yaml "go.yaml.in/yaml/v3"
)

// Skill is a hand-written skill as a registry would declare it.
type Skill struct {
	// Path is the SKILL.md it was read from, workspace-relative, and Sum the
	// SHA-256 of what was read.
	Path string
	Sum  [32]byte
	Name string
	Spec Spec
	// Files are the supporting files of its directory, beside the SKILL.md;
	// with them, the registry gets the whole directory, the SKILL.md in Text.
	Files []registry.SupportFile
	Text  string
}

// Spec holds the front matter keys a registry Skill carries, and the body.
type Spec struct {
	Dir                    string            `yaml:"dir,omitempty"`
	Description            string            `yaml:"description,omitempty"`
	DisableModelInvocation bool              `yaml:"disableModelInvocation,omitempty"`
	UserInvocable          *bool             `yaml:"userInvocable,omitempty"`
	Paths                  []string          `yaml:"paths,omitempty"`
	License                string            `yaml:"license,omitempty"`
	Compatibility          string            `yaml:"compatibility,omitempty"`
	Metadata               map[string]string `yaml:"metadata,omitempty"`
	AllowedTools           string            `yaml:"allowedTools,omitempty"`
	ArgumentHint           string            `yaml:"argumentHint,omitempty"`
	Model                  string            `yaml:"model,omitempty"`
	Context                string            `yaml:"context,omitempty"`
	Agent                  string            `yaml:"agent,omitempty"`
	Body                   string            `yaml:"body,omitempty"`
	BodyFile               string            `yaml:"bodyFile,omitempty"`
}

// keys maps each front matter key a Skill can carry to its field.
var keys = map[string]string{
	"name": "metadata.name", "description": "spec.description", "disable-model-invocation": "spec.disableModelInvocation",
	"user-invocable": "spec.userInvocable", "paths": "spec.paths",
	"license": "spec.license", "compatibility": "spec.compatibility", "metadata": "spec.metadata", "allowed-tools": "spec.allowedTools",
	"argument-hint": "spec.argumentHint", "model": "spec.model", "context": "spec.context", "agent": "spec.agent",
}

// Parse reads the SKILL.md at rel, which must be in a skill directory of a target.
// Front matter keys a registry Skill cannot carry are an error naming them, never
// dropped.
func Parse(rel string, data []byte) (Skill, error) {
	dir := clients.SkillDirOf(rel)
	if dir == "" || path.Join(dir, "SKILL.md") != rel {
		return Skill{}, fmt.Errorf("%s: not the SKILL.md of a skill directory in a target directory (like .claude/skills/NAME/SKILL.md)", rel)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	front, body, closed := strings.Cut(rest, "\n---\n")
	if !ok || !closed {
		return Skill{}, fmt.Errorf("%s: no front matter between --- lines at the top", rel)
	}
	var fields map[string]any
	if err := yaml.Unmarshal([]byte(front), &fields); err != nil {
		return Skill{}, fmt.Errorf("%s: front matter: %v", rel, err)
	}
	var unknown []string
	for k := range fields {
		if _, known := keys[k]; !known {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return Skill{}, fmt.Errorf("%s: a registry Skill cannot carry %s; remove them from the file, or keep the skill hand-written",
			rel, strings.Join(unknown, ", "))
	}
	var fm struct {
		Name                   string            `yaml:"name"`
		Description            string            `yaml:"description"`
		DisableModelInvocation bool              `yaml:"disable-model-invocation"`
		UserInvocable          *bool             `yaml:"user-invocable"`
		Paths                  []string          `yaml:"paths"`
		License                string            `yaml:"license"`
		Compatibility          string            `yaml:"compatibility"`
		Metadata               map[string]string `yaml:"metadata"`
		ArgumentHint           string            `yaml:"argument-hint"`
		Model                  string            `yaml:"model"`
		Context                string            `yaml:"context"`
		Agent                  string            `yaml:"agent"`
	}
	if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
		return Skill{}, fmt.Errorf("%s: front matter: %v", rel, err)
	}
	allowed, err := registry.AllowedToolsValue(fields["allowed-tools"])
	if err != nil {
		return Skill{}, fmt.Errorf("%s: allowed-tools: %v", rel, err)
	}
	if name := path.Base(dir); fm.Name != name {
		return Skill{}, fmt.Errorf("%s: name %q differs from its directory %q; make them the same first", rel, fm.Name, name)
	}
	return Skill{Path: rel, Sum: sha256.Sum256(data), Name: fm.Name, Text: text, Spec: Spec{
		Description: fm.Description, DisableModelInvocation: fm.DisableModelInvocation,
		UserInvocable: fm.UserInvocable, Paths: fm.Paths, License: fm.License, Compatibility: fm.Compatibility,
		Metadata: fm.Metadata, AllowedTools: allowed, ArgumentHint: fm.ArgumentHint, Model: fm.Model, Context: fm.Context, Agent: fm.Agent,
		Body: strings.TrimPrefix(body, "\n"),
	}}, nil
}

// Same says a and b declare the same skill.
func Same(a, b Skill) bool {
	x, _ := yaml.Marshal(a.Spec)
	y, _ := yaml.Marshal(b.Spec)
	return a.Name == b.Name && bytes.Equal(x, y) && slices.EqualFunc(a.Files, b.Files, func(f, g registry.SupportFile) bool {
		return f.Path == g.Path && f.Sum == g.Sum && f.Executable == g.Executable
	})
}

// Document is the registry file declaring sk: its body inline, or, with
// bodyFile set (relative to the document), in that file; or, with dir set, the
// skill directory there.
func Document(sk Skill, bodyFile, dir string) []byte {
	spec := sk.Spec
	switch {
	case dir != "":
		spec = Spec{Dir: dir}
	case bodyFile != "":
		spec.Body, spec.BodyFile = "", bodyFile
	}
	doc := struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
		Spec Spec `yaml:"spec"`
	}{APIVersion: registry.APIVersion, Kind: "Skill", Spec: spec}
	doc.Metadata.Name = sk.Name
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Adopted from %s by skillsync adopt; edit it here from now on.\n", sk.Path)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.Encode(doc)
	enc.Close()
	return b.Bytes()
}
