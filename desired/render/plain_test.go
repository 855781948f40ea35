package render

import (
	"bytes"
	"testing"
)

// plainCases are values the fast path must either refuse or write exactly as the
// encoder does.
var plainCases = []string{
	"intent", "Propose an intent", "Propose an intent for billing (#12)", "Search: by tag", "a: b", "key:",
	"Yes", "no", "On", "NULL", "y", "True", "x #comment", "x#y", "it's", "<text>", "path/to/x", "a  b", "trailing ",
	"--- no", "a---b", "1abc", "-dash", "?q", "Ünïcode", "tab\there", "new\nline", "quote\"d", "back\\slash",
	"Estimate a budget for infra (#1234) and then something rather longer than eighty characters in all",
	"percent %", "<text>", "<a: b>", "<", "<#>", "star *", "amp &", "bang!", "question?", "comma, then", "dot.", "under_score",
	"Bash(./run.sh:*) Read", "a [b] {c}", "say \"hi\"", "mail @team", "a | b > c", "x = y + z; a ~ b $c ^d `e`", "a\\b",
	"a *", "a &", "a |", "a >", "a [", "a {", "a @", "a `", "a %", "[a]", "{a}", "a, [b], {c}: d", "a - b", "a -- b",
	"Approve an alert for sales (#139). Use when asked to approve an alert for sales (#139), following the team's checklist and examples.",
}

func TestPlainFrontMatterWritesWhatTheEncoderWrites(t *testing.T) {
	accepted := 0
	for _, v := range plainCases {
		fields := []field{{"name", "x"}, {"description", v}, {"disable-model-invocation", true}}
		fast, ok := appendPlainFrontMatter(nil, fields)
		if !ok {
			continue
		}
		accepted++
		slow, err := encodedFrontMatter(fields)
		if err != nil {
			t.Errorf("%q: the fast path took a value the encoder refuses: %v", v, err)
			continue
		}
		if !bytes.Equal(fast, slow) {
			t.Errorf("%q: fast path wrote\n%s\nthe encoder\n%s", v, fast, slow)
		}
	}
	if accepted < 11 {
		t.Errorf("the fast path took only %d of the cases; it is meant for the common ones", accepted)
	}
}

// FuzzPlainFrontMatter checks the same for arbitrary text.
func FuzzPlainFrontMatter(f *testing.F) {
	for _, v := range plainCases {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		fields := []field{{"name", "x"}, {"description", v}}
		fast, ok := appendPlainFrontMatter(nil, fields)
		if !ok {
			return
		}
		slow, err := encodedFrontMatter(fields)
		if err != nil || !bytes.Equal(fast, slow) {
			t.Fatalf("%q: fast path wrote %q, encoder %q (%v)", v, fast, slow, err)
		}
	})
}

// The words a YAML 1.1 reader takes for a boolean or null, in any case, and
// nothing longer; a description is told apart without a lower-case copy.
func TestYAML11WordsAndNothingLonger(t *testing.T) {
	for _, w := range []string{"y", "N", "yes", "No", "ON", "off", "True", "FALSE", "null", "~"} {
		if !yaml11Word(w) {
			t.Errorf("yaml11Word(%q) = false, want true", w)
		}
	}
	for _, s := range []string{"", "ye", "nope", "falsey", "Yes please", "null and void"} {
		if yaml11Word(s) {
			t.Errorf("yaml11Word(%q) = true, want false", s)
		}
	}
	long := "Create a Ticket in the Sales queue"
	if n := testing.AllocsPerRun(100, func() { _ = yaml11Word(long) }); n != 0 {
		t.Errorf("yaml11Word of a description allocates %v times, want none", n)
	}
}
