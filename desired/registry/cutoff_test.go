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
