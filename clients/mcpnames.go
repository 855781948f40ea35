package clients

import (
	"crypto/sha1"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
)

// MCPNaming is how a client makes the name its MCP tool pattern gives (MCPTool)
// one its model's API takes, when it holds a character that API refuses (a
// tool name may hold dots) or is too long. Each is what the client's own code
// does, measured by the conformance suite with a tool named notes.get and one
// of 62 characters. The zero value keeps the name as given (Codex names the
// tool inside its namespace as it is).
type MCPNaming struct {
	// Rule describes it for docs/clients.md.
	Rule string
	// name is the name the model sees for the name the pattern gives.
	name func(string) string
}

var (
	// dotsAsUnderscores: each character other than letters, digits, _ and - is
	// shown as _ (Claude Code, OpenCode, Kilo; none of them cut a name of 80
	// characters).
	dotsAsUnderscores = MCPNaming{Rule: "other characters than letters, digits, `_` and `-` shown as `_`",
		name: func(n string) string { return unsafeToolChar.ReplaceAllString(n, "_") }}
	// copilotNames: each such character is shown as -, and the name cut to 64
	// characters (Copilot CLI).
	copilotNames = MCPNaming{Rule: "other characters than letters, digits, `_` and `-` shown as `-`, cut to 64 characters",
		name: func(n string) string { n = unsafeToolChar.ReplaceAllString(n, "-"); return n[:min(len(n), 64)] }}
	// geminiNames: a name over 63 characters keeps its first and last 30 with
	// ... between them (Gemini CLI's generateValidName); dots are kept.
	geminiNames = MCPNaming{Rule: "over 63 characters: its first 30, `...` and its last 30",
		name: func(n string) string {
			if len(n) <= 63 {
				return n
			}
			return n[:30] + "..." + n[len(n)-30:]
		}}
	// qwenNames: a name over 63 characters, or with another character than
	// letters, digits, _ and - or not starting with a letter, is shown with each
	// such character as _, cut to leave room for _ and the name's 32-bit FNV-1a
	// hash in base 36 (Qwen Code's normalizeToolNameForProvider).
	qwenNames = MCPNaming{Rule: "a name over 63 characters or with other characters than letters, digits, `_` and `-` shown with `_` for them, cut, and `_<FNV-1a of the name, base 36>`",
		name: qwenToolName}
	// clineNames: a name over 64 characters, or with runs of other characters
	// than letters, digits, _ and -, is shown with each run as _, cut to 55
	// characters, and _ and the first 8 hex digits of its SHA-1.
	clineNames = MCPNaming{Rule: "a name over 64 characters or with other characters than letters, digits, `_` and `-` shown with `_` for each run of them, cut to 55, and `_<8 hex digits of its SHA-1>`",
		name: clineToolName}
)

var (
	unsafeToolChar     = regexp.MustCompile(`[^A-Za-z0-9_-]`)
	unsafeToolCharRuns = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
)

// safeToolName says name holds only letters, digits, _ and -, which the
// clients keep, and begins with a letter when letterFirst: a check every
// rendered skill of such a client makes, so no regular expression runs for it.
func safeToolName(name string, letterFirst bool) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 && letterFirst || !('0' <= c && c <= '9' || c == '_' || c == '-')) {
			return false
		}
	}
	return !letterFirst || name != ""
}

// Of is the name the model sees for name, the name the client's pattern gives.
func (n MCPNaming) Of(name string) string {
	if n.name == nil {
		return name
	}
	return n.name(name)
}

func qwenToolName(name string) string {
	const most = 63
	if len(name) <= most && safeToolName(name, true) {
		return name
	}
	sanitized := unsafeToolChar.ReplaceAllString(name, "_")
	if !strings.ContainsAny(sanitized[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
		sanitized = "tool_" + sanitized
	}
	hash := uint32(2166136261) // names are ASCII: a byte is a JavaScript code unit
	for i := 0; i < len(name); i++ {
		hash = (hash ^ uint32(name[i])) * 16777619
	}
	suffix := "_" + leftPad(strconv.FormatUint(uint64(hash), 36), 7)
	return sanitized[:min(len(sanitized), most-len(suffix))] + suffix
}

func clineToolName(name string) string {
	const most, hashLen = 64, 8
	if len(name) <= most && safeToolName(name, false) {
		return name
	}
	sanitized := unsafeToolCharRuns.ReplaceAllString(name, "_")
	sum := sha1.Sum([]byte(name))
	keep := sanitized[:min(len(sanitized), most-1-hashLen)]
	if keep == "" {
		keep = "mcp_tool"
	}
	return keep + "_" + hex.EncodeToString(sum[:])[:hashLen]
}

func leftPad(s string, n int) string {
	return strings.Repeat("0", max(0, n-len(s))) + s
}
