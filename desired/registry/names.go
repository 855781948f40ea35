package registry

import "strings"

// The patterns of names are matched by hand: every capability's id, tool and
// alias is matched on each load, where compiled regular expressions cost as much
// as the rest of a capability's checks. A test holds each function to its
// pattern.

// isSkillName matches SkillNamePattern.
func isSkillName(s string) bool { return separatedWords(s, isLowerOrDigit, "-") }

// isCapabilityID matches CapabilityIDPattern.
func isCapabilityID(s string) bool { return separatedWords(s, isLetterOrDigit, "._-") }

// isDottedName matches DottedNamePattern: words of letters, digits, _ and -,
// each beginning with a letter or digit, two or more of them joined by dots.
func isDottedName(s string) bool {
	words := 0
	for word := range strings.SplitSeq(s, ".") {
		if word == "" || !isLetterOrDigit(word[0]) || !allBytes(word, isNameByte) {
			return false
		}
		words++
	}
	return words >= 2
}

// isMCPName matches MCPNamePattern.
func isMCPName(s string) bool { return len(s) >= 1 && len(s) <= 64 && allBytes(s, isNameByte) }

// isMCPToolName matches MCPToolNamePattern.
func isMCPToolName(s string) bool {
	return len(s) >= 1 && len(s) <= 128 && allBytes(s, func(b byte) bool { return isNameByte(b) || b == '.' })
}

// separatedWords says s is one or more non-empty words of bytes that word
// accepts, each two separated by one byte of seps.
func separatedWords(s string, word func(byte) bool, seps string) bool {
	if s == "" {
		return false
	}
	afterWord := false
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case word(b):
			afterWord = true
		case afterWord && strings.IndexByte(seps, b) >= 0:
			afterWord = false
		default:
			return false
		}
	}
	return afterWord
}

func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isLowerOrDigit(b byte) bool { return 'a' <= b && b <= 'z' || '0' <= b && b <= '9' }

func isLetterOrDigit(b byte) bool { return isLowerOrDigit(b) || 'A' <= b && b <= 'Z' }

// isNameByte is a letter, a digit, _ or -.
func isNameByte(b byte) bool { return isLetterOrDigit(b) || b == '_' || b == '-' }
