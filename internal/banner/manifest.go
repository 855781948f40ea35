package banner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A SKILL.md that skillsync writes with supporting files (scripts, references,
// assets) names each of them on a line of its own, right after the mark line:
//
//	# skillsync: file sha256=<hex> mode=755 path=scripts/release.sh
//
// The lines are inside the banner's digest, so the manifest cannot be edited
// without the SKILL.md counting as edited; and they are YAML comments, so no
// client reads them. A file the manifest does not name is a person's.
const (
	manifestPrefix = "# skillsync: file sha256="
	modeField      = " mode="
	pathField      = " path="
	modeExecutable = "755"
	modePlain      = "644"
)

// MaxSupportingFileSize is the largest supporting file a manifest names.
const MaxSupportingFileSize = 16 << 20

// ManifestEntry is one supporting file of a skill directory as its SKILL.md
// names it.
type ManifestEntry struct {
	Path       string // relative to the skill directory, slash-separated
	Digest     string // hex SHA-256 of the file's content
	Executable bool
}

// ManifestSize is how many bytes AppendManifest appends for entries.
func ManifestSize(entries []ManifestEntry) int {
	n := 0
	for _, e := range entries {
		n += len(manifestPrefix+modeField+modeExecutable+pathField) + len(e.Digest) + len(e.Path) + 1
	}
	return n
}

// AppendManifest appends the manifest lines of entries, in the order given, to a
// file begun with Open, before anything else follows the mark line.
func AppendManifest(dst []byte, entries []ManifestEntry) ([]byte, error) {
	for _, e := range entries {
		if err := CheckManifestPath(e.Path); err != nil {
			return nil, err
		}
		if !isDigest([]byte(e.Digest)) {
			return nil, fmt.Errorf("banner: %q is no SHA-256 digest", e.Digest)
		}
		mode := modePlain
		if e.Executable {
			mode = modeExecutable
		}
		dst = append(dst, manifestPrefix...)
		dst = append(dst, e.Digest...)
		dst = append(dst, modeField+mode+pathField...)
		dst = append(dst, e.Path...)
		dst = append(dst, '\n')
	}
	return dst, nil
}

// CheckManifestPath says why rel cannot be named on a manifest line: it must be
// a relative, clean, slash-separated path of valid UTF-8 without control
// characters, leading nowhere above the skill directory.
func CheckManifestPath(rel string) error {
	switch {
	case rel == "" || strings.HasPrefix(rel, "/") || rel == "." || rel == ".." ||
		strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/..") ||
		strings.Contains(rel, "//") || strings.Contains(rel, "/./") || strings.HasPrefix(rel, "./") || strings.HasSuffix(rel, "/"):
		return fmt.Errorf("banner: %q is no clean path inside a skill directory", rel)
	case !utf8.ValidString(rel):
		return fmt.Errorf("banner: %q is not valid UTF-8", rel)
	}
	for _, r := range rel {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return fmt.Errorf("banner: %q holds a control character or a backslash", rel)
		}
	}
	return nil
}

// Manifest reads the manifest of a file that carries a banner: the supporting
// files its lines name, in order. A file without a banner names none; a line
// that is not well formed ends the manifest.
func Manifest(content []byte) []ManifestEntry {
	_, markEnd, ok := markLine(content)
	if !ok {
		return nil
	}
	var out []ManifestEntry
	rest := content[markEnd+1:]
	for {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		if !found {
			return out
		}
		e, ok := parseManifestLine(string(line))
		if !ok {
			return out
		}
		out = append(out, e)
		rest = after
	}
}

func parseManifestLine(line string) (ManifestEntry, bool) {
	fields, ok := strings.CutPrefix(line, manifestPrefix)
	if !ok {
		return ManifestEntry{}, false
	}
	digest, fields, ok := strings.Cut(fields, modeField)
	if !ok || !isDigest([]byte(digest)) {
		return ManifestEntry{}, false
	}
	mode, rel, ok := strings.Cut(fields, pathField)
	if !ok || (mode != modeExecutable && mode != modePlain) || CheckManifestPath(rel) != nil {
		return ManifestEntry{}, false
	}
	return ManifestEntry{Path: rel, Digest: digest, Executable: mode == modeExecutable}, true
}

// A generated SKILL.md names where its content came from on one more line,
// after the manifest, for a reviewer of the change to see:
//
//	# skillsync: from source team (git https://git.example.com/team.git, commit 3f2a…)
//
// It is inside the banner's digest like the manifest, and a YAML comment.
const originPrefix = "# skillsync: from "

// OriginSize is how many bytes AppendOrigin appends for origin.
func OriginSize(origin string) int {
	if origin == "" {
		return 0
	}
	return len(originPrefix) + len(oneLine(origin)) + 1
}

// AppendOrigin appends the line that says where the file's content came from,
// after the manifest; nothing for an empty origin. What in origin could end
// the line or hide (a line or paragraph separator, a control or format
// character, bytes that are not UTF-8) is written as an escape, so that the
// line stays one YAML comment whatever a file name holds.
func AppendOrigin(dst []byte, origin string) []byte {
	if origin == "" {
		return dst
	}
	dst = append(dst, originPrefix...)
	dst = append(dst, oneLine(origin)...)
	return append(dst, '\n')
}

// oneLine is s with every rune that is not graphic, and every byte that is
// not UTF-8, escaped as Go writes it in a string literal.
func oneLine(s string) string {
	if printableASCII(s) {
		return s // every file's origin is written twice, and most are plain paths
	}
	return escapeLine(s)
}

// escapeLine is oneLine for any s.
func escapeLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\\' || !unicode.IsGraphic(r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// printableASCII says s holds only printable ASCII and no backslash: what
// oneLine leaves as it is.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e || s[i] == '\\' {
			return false
		}
	}
	return true
}

// Origin is what the file's banner says its content came from; empty when it
// says nothing.
func Origin(content []byte) string {
	_, markEnd, ok := markLine(content)
	if !ok {
		return ""
	}
	rest := content[markEnd+1:]
	for {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		if !found {
			return ""
		}
		if origin, ok := strings.CutPrefix(string(line), originPrefix); ok {
			return origin
		}
		if _, ok := parseManifestLine(string(line)); !ok {
			return ""
		}
		rest = after
	}
}

// StagedName is the temp name a supporting file with content data is staged
// under: the pattern's, its digits the start of the content's SHA-256. It has no
// banner to be known by, so a leftover is known by its name and content agreeing.
func StagedName(data []byte) string { return StagedNameOf(sha256.Sum256(data)) }

// StagedNameOf is StagedName of the content whose SHA-256 is sum.
func StagedNameOf(sum [32]byte) string {
	return strings.Replace(TempPattern, "*", hex.EncodeToString(sum[:8]), 1)
}

// IsStaged says the temp file name with content data is a supporting file
// skillsync staged.
func IsStaged(name string, data []byte) bool { return name == StagedName(data) }
