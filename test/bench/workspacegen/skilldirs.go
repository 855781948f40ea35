package workspacegen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SkillDirFiles is how many files each skill directory of WriteSkillDirs holds:
// SKILL.md and nine supporting files.
const SkillDirFiles = 10

// A supporting file of every generated skill directory: its path inside the
// directory, its mode, and about how many bytes it holds.
type supportingFile struct {
	path string
	mode os.FileMode
	size int
}

// supporting are the nine files beside each SKILL.md: documents of a few KB, one
// executable script, one small binary file, and one subfolder (references/).
var supporting = []supportingFile{
	{"checklist.md", 0o644, 2 << 10},
	{"examples.md", 0o644, 4 << 10},
	{"template.md", 0o644, 1536},
	{"config.json", 0o644, 1 << 10},
	{"schema.yaml", 0o644, 2 << 10},
	{"run.sh", 0o755, 1536},
	{"icon.png", 0o644, 768}, // binary: NUL and high bytes
	{"references/guide.md", 0o644, 5 << 10},
	{"references/faq.md", 0o644, 3 << 10},
}

// SkillDirName is the name of skill directory i, and so of its skill.
func SkillDirName(i int) string {
	_, alias, _ := Capability(i)
	return alias
}

// SkillDirSource is skill directory i, relative to the workspace.
func SkillDirSource(i int) string { return "skills/" + SkillDirName(i) }

// SupportingFile is the supporting file every SkillDirEdit of a supporting file
// changes: a document in the subfolder, relative to the skill directory.
const SupportingFile = "references/guide.md"

// SkillDirsFiles is the number of files a workspace of n skill directories
// generates: every file of every directory, in each of the three targets.
func SkillDirsFiles(n int) int { return 3 * n * SkillDirFiles }

// WriteSkillDirs creates in dir, which need not exist, a workspace of n whole
// skill directories under skills/, declared by spec.skillDirs and enabled for the
// three targets; no registry.
func WriteSkillDirs(dir string, n int) error {
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  skillDirs: [skills/*]\n" +
		"  targets: [claude-code, qwen-code, agents]\n"
	if err := os.MkdirAll(filepath.Join(dir, "skills"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "skillsync.yaml"), []byte(config), 0o644); err != nil {
		return err
	}
	for i := range n {
		if err := writeSkillDir(filepath.Join(dir, SkillDirSource(i)), i); err != nil {
			return err
		}
	}
	return nil
}

func writeSkillDir(dir string, i int) error {
	if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), SkillMD(i, ""), 0o644); err != nil {
		return err
	}
	for k, f := range supporting {
		if err := os.WriteFile(filepath.Join(dir, f.path), supportingBytes(i, k, ""), f.mode); err != nil {
			return err
		}
	}
	return nil
}

// SkillMD is the SKILL.md of skill directory i; note, when not empty, is a line
// added to its body.
func SkillMD(i int, note string) []byte {
	name := SkillDirName(i)
	_, _, title := Capability(i)
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s. Use when asked to %s, following the team's checklist and examples.\n", name, title, strings.ToLower(title[:1])+title[1:])
	fmt.Fprintf(&b, "allowed-tools: Bash(./run.sh:*) Read\n---\n\n# %s\n\n", title)
	if note != "" {
		fmt.Fprintf(&b, "%s\n\n", note)
	}
	b.WriteString("1. Read [the checklist](checklist.md) and [the guide](references/guide.md).\n")
	b.WriteString("2. Fill in [the template](template.md) with what the user gave; see [examples](examples.md).\n")
	b.WriteString("3. Check the result against [the schema](schema.yaml) and [the settings](config.json).\n")
	b.WriteString("4. Run `./run.sh` with the filled template; answers to common questions are in [the FAQ](references/faq.md).\n\n")
	for b.Len() < 1400 {
		fmt.Fprintf(&b, "Keep the %s short: one paragraph per point, the numbers from the source, never guessed (%d).\n", name, b.Len())
	}
	return []byte(b.String())
}

// SupportingText is supporting file SupportingFile of skill directory i; note,
// when not empty, is a line added to it.
func SupportingText(i int, note string) []byte {
	for k, f := range supporting {
		if f.path == SupportingFile {
			return supportingBytes(i, k, note)
		}
	}
	panic("no supporting file " + SupportingFile)
}

// pngSignature begins a PNG file, and its first chunk's length and type.
var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, '\r', 'I', 'H', 'D', 'R'}

func supportingBytes(i, k int, note string) []byte {
	f := supporting[k]
	name := SkillDirName(i)
	var b strings.Builder
	switch {
	case f.path == "icon.png":
		b.Write(pngSignature)
		for x := uint32(i*2654435761 + 1); b.Len() < f.size; {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b.WriteByte(byte(x))
		}
		return []byte(b.String())
	case f.path == "run.sh":
		fmt.Fprintf(&b, "#!/bin/sh\n# %s: runs the filled template through the team's tool.\nset -eu\n", name)
	case f.path == "config.json":
		fmt.Fprintf(&b, "{\n  \"skill\": %q,\n  \"limits\": {\"items\": %d, \"pages\": %d},\n  \"notes\": [\n", name, 10+i%40, 1+i%5)
	case f.path == "schema.yaml":
		fmt.Fprintf(&b, "# What %s produces.\ntype: object\nproperties:\n", name)
	default:
		fmt.Fprintf(&b, "# %s: %s\n\n", name, strings.TrimSuffix(filepath.Base(f.path), ".md"))
	}
	if note != "" {
		fmt.Fprintf(&b, "%s\n", note)
	}
	for line := 0; b.Len() < f.size; line++ {
		switch f.path {
		case "run.sh":
			fmt.Fprintf(&b, "echo \"step %d of %s: $1\" >&2\n", line, name)
		case "config.json":
			fmt.Fprintf(&b, "    \"note %d: keep the %s output under the limits\",\n", line, name)
		case "schema.yaml":
			fmt.Fprintf(&b, "  field%d: {type: string, description: Part %d of the %s result.}\n", line, line, name)
		default:
			fmt.Fprintf(&b, "- Point %d of %s: say what was done, what is left, and who decides; link the source.\n", line, name)
		}
	}
	switch f.path {
	case "run.sh":
		b.WriteString("exit 0\n")
	case "config.json":
		b.WriteString("    \"end\"\n  ]\n}\n")
	}
	return []byte(b.String())
}

// WriteSkillDirFile saves rel, a file of skill directory i of the workspace dir,
// with data, by writing a temporary file and renaming it over, as editors do; the
// temporary file is at the workspace root, where no pattern would take it in.
func WriteSkillDirFile(dir string, i int, rel string, data []byte) error {
	path := filepath.Join(dir, SkillDirSource(i), rel)
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".bench-save.tmp")
	if err := os.WriteFile(tmp, data, info.Mode().Perm()); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
