package registry

import (
	"strings"
	"testing"
)

func TestCutOff(t *testing.T) {
	applied := map[string][]byte{
		"skillsync.yaml":     []byte("a: 1\nb: 2\n"),
		"registry/caps.yaml": []byte("one\ntwo\nthree\n"),
	}
	tests := []struct {
		name     string
		now      string
		wantLine int // 0: not cut off
	}{
		{"unchanged", "one\ntwo\nthree\n", 0},
		{"longer", "one\ntwo\nthree\nfour\n", 0},
		{"edited shorter", "uno\n", 0},
		{"cut at a line boundary", "one\ntwo\n", 3},
		{"cut mid-line", "one\ntw", 2},
		{"empty", "", 1},
		{"same length, different", "one\ntwo\nthreE\n", 0},
		{"shorter but not a prefix", "one\ntwo\nthr33", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &Registry{Sources: map[string]Source{"skillsync.yaml": SourceOf(applied["skillsync.yaml"]), "registry/caps.yaml": SourceOf([]byte(tt.now))}}
			cuts := CutOff(recordedBytes(applied), reg)
			if tt.wantLine == 0 {
				if len(cuts) != 0 {
					t.Fatalf("CutOff = %v, want nothing", cuts)
				}
				return
			}
			if len(cuts) != 1 {
				t.Fatalf("CutOff = %v, want one truncation", cuts)
			}
			p := cuts[0].Problem([]string{"a/SKILL.md", "b/SKILL.md", "c/SKILL.md", "d/SKILL.md", "e/SKILL.md", "f/SKILL.md"})
			if p.Pos.File != "registry/caps.yaml" || p.Pos.Line != tt.wantLine {
				t.Errorf("position = %v, want registry/caps.yaml:%d", p.Pos, tt.wantLine)
			}
			if !strings.Contains(p.Hint, "skillsync accept registry/caps.yaml") {
				t.Errorf("hint = %q, want the accept command", p.Hint)
			}
			if !strings.Contains(p.Message, "would delete a/SKILL.md, b/SKILL.md, c/SKILL.md, d/SKILL.md, e/SKILL.md and 1 more") {
				t.Errorf("message %q does not list what would be deleted", p.Message)
			}
		})
	}
}

func TestCutOffIgnoresFilesWithoutARecord(t *testing.T) {
	if ps := CutOff(nil, &Registry{Sources: map[string]Source{"skillsync.yaml": SourceOf(nil)}}); len(ps) != 0 {
		t.Fatalf("CutOff with no record = %v, want nothing", ps)
	}
	if ps := CutOff(recordedBytes{"gone.yaml": []byte("x")}, &Registry{Sources: map[string]Source{}}); len(ps) != 0 {
		t.Fatalf("CutOff of a removed file = %v, want nothing (removal is not a cut)", ps)
	}
}

// A cut config or profile can withhold any skill: such a file is blamed for every
// delete; a file of capabilities and skills only for those it no longer declares.
func TestDroppedBlamesByWhatTheFileDecides(t *testing.T) {
	caps := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: a.one}\nspec: {title: A, effect: read, skill: {alias: a, argument: t}}\n---\n" +
		"apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: b.two}\nspec: {title: B, effect: read, skill: {alias: b, argument: t}}\n"
	reg := &Registry{Capabilities: []Capability{{ID: "a.one", Spec: CapabilitySpec{Skill: &CapabilitySkill{Alias: "a"}}}}}
	got := dropped("registry/caps.yaml", []byte(caps), reg)
	if !got["capability/b.two"] || got["capability/a.one"] || len(got) != 1 {
		t.Errorf("dropped = %v, want only capability/b.two", got)
	}
	for file, text := range map[string]string{
		ConfigName:               "apiVersion: skillsync/v1\nkind: Workspace\nspec: {registry: [registry/*.yaml]}\n",
		"registry/profiles.yaml": "apiVersion: skillsync/v1\nkind: Profile\nmetadata: {name: p}\nspec: {capabilities: [x.y]}\n",
	} {
		if d := dropped(file, []byte(text), reg); d != nil {
			t.Errorf("%s: dropped = %v, want nil (every delete)", file, d)
		}
	}
}

// recordedBytes is a record that keeps every file's bytes.
type recordedBytes map[string][]byte

func (r recordedBytes) Size(file string) (int, bool) {
	data, ok := r[file]
	return len(data), ok
}

func (r recordedBytes) Bytes(file string) []byte { return r[file] }

// A file cut where one of its documents ended still declares whole documents: an
// edit that removed the others, not a save cut off. One cut inside a document, or
// left with no document at all, is still a truncation.
func TestCutOffAtADocumentBoundaryIsAnEdit(t *testing.T) {
	const first = "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: one}\nspec: {description: One, body: One.}\n"
	const second = "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: two}\nspec: {description: Two, body: Two.}\n"
	applied := first + "---\n" + second + "--- # three\n" + strings.ReplaceAll(second, "two", "three")
	tests := []struct {
		name     string
		now      string
		wantLine int // 0: not cut off
	}{
		{"the last document removed, with its ---", first + "---\n" + second, 0},
		{"the last two documents removed", first, 0},
		{"the last two documents removed, the --- kept", first + "---\n", 0},
		{"a --- with a comment kept", first + "---\n" + second + "--- # three\n", 0},
		{"cut inside the last document, at a line end", first + "---\n" + second + "--- # three\napiVersion: skillsync/v1\nkind: Skill\n", 13},
		{"cut inside the second document", first + "---\napiVersion: skillsync/v1\n", 7},
		{"cut mid-line", first[:30], 2},
		{"emptied", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.HasPrefix(applied, tt.now) {
				t.Fatalf("%q is no prefix of what was applied", tt.now)
			}
			reg := &Registry{Sources: map[string]Source{"registry/skills.yaml": SourceOf([]byte(tt.now))}}
			cuts := CutOff(recordedBytes{"registry/skills.yaml": []byte(applied)}, reg)
			switch {
			case tt.wantLine == 0 && len(cuts) != 0:
				t.Errorf("CutOff = %v, want nothing: the file ends where a document did", cuts)
			case tt.wantLine != 0 && (len(cuts) != 1 || cuts[0].Line != tt.wantLine):
				t.Errorf("CutOff = %v, want one truncation at line %d", cuts, tt.wantLine)
			}
		})
	}
}

// Comments and blank lines between a document and the --- after it are the
// document's: a file cut before them ends where the document did.
func TestCutOffBeforeCommentsAndAMarker(t *testing.T) {
	const doc = "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: one}\nspec: {description: One, body: One.}\n"
	applied := doc + "\n# the next one\n---\n" + strings.ReplaceAll(doc, "one", "two")
	reg := &Registry{Sources: map[string]Source{"r.yaml": SourceOf([]byte(doc))}}
	if cuts := CutOff(recordedBytes{"r.yaml": []byte(applied)}, reg); len(cuts) != 0 {
		t.Errorf("CutOff = %v, want nothing", cuts)
	}
	// Left with its opening comment only, the file declares nothing: cut off.
	reg = &Registry{Sources: map[string]Source{"r.yaml": SourceOf([]byte("# skills\n"))}}
	if cuts := CutOff(recordedBytes{"r.yaml": []byte("# skills\n---\n" + doc)}, reg); len(cuts) != 1 {
		t.Errorf("CutOff of a file left with a comment = %v, want one truncation", cuts)
	}
}
