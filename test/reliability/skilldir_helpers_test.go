//go:build reliability && linux

package reliability

// What the ownership and torn-save suites share about whole skill directories
// (spec.dir): writing one as its author keeps it, and reading the manifest of a
// generated SKILL.md again, from docs/ownership.md rather than from
// internal/banner, so that a reader bug in banner cannot agree with itself.

import (
	"bytes"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// dirSrcFile is one file of a skill directory as its author keeps it.
type dirSrcFile struct {
	data []byte
	exec bool // written with mode 0755, else 0644
}

// writeSkillDirSource replaces the directory dir with exactly files (paths relative
// to it, SKILL.md among them), each with its mode.
func writeSkillDirSource(dir string, files map[string]dirSrcFile) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		if err := writeSkillDirFile(dir, rel, files[rel]); err != nil {
			return err
		}
	}
	return nil
}

// writeSkillDirFile writes one file of a skill directory, making its folders.
func writeSkillDirFile(dir, rel string, f dirSrcFile) error {
	full := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if f.exec {
		mode = 0o755
	}
	if err := os.WriteFile(full, f.data, mode); err != nil {
		return err
	}
	// WriteFile keeps the mode of a file that was there: set it.
	return os.Chmod(full, mode)
}

// manifestNamed is one supporting file a generated SKILL.md names.
type manifestNamed struct {
	digest string // lowercase hex sha256
	exec   bool
}

// readSkillManifest is the manifest rule of docs/ownership.md written out again: the
// lines right after the banner's mark line (the third line), each exactly
// "# skillsync: file sha256=<64 lowercase hex> mode=755|644 path=<rel>" and ended
// by "\n", up to the first line that is not one. rel is a clean, slash-separated
// path inside the skill directory. The caller decides whether the banner is
// intact; this only reads what the lines say.
func readSkillManifest(data []byte) map[string]manifestNamed {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) < 4 {
		return nil
	}
	out := map[string]manifestNamed{}
	for _, l := range lines[3:] {
		line, ok := strings.CutSuffix(string(l), "\n")
		if !ok {
			break
		}
		rest, ok := strings.CutPrefix(line, "# skillsync: file sha256=")
		if !ok || len(rest) < 64 {
			break
		}
		digest, rest := rest[:64], rest[64:]
		var exec bool
		switch {
		case strings.HasPrefix(rest, " mode=755 path="):
			exec = true
		case strings.HasPrefix(rest, " mode=644 path="):
		default:
			rest = ""
		}
		rel := strings.TrimPrefix(rest, " mode=755 path=")
		rel = strings.TrimPrefix(rel, " mode=644 path=")
		if rest == "" || strings.Trim(digest, "0123456789abcdef") != "" || !skillManifestPathClean(rel) {
			break
		}
		out[rel] = manifestNamed{digest: digest, exec: exec}
	}
	return out
}

// skillManifestPathClean: relative, no empty, "." or ".." segment, valid UTF-8, no
// control character or backslash.
func skillManifestPathClean(rel string) bool {
	if rel == "" || !utf8.ValidString(rel) || strings.ContainsFunc(rel, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return path.Clean(rel) == rel
}
