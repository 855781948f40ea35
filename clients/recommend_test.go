package clients

import (
	"slices"
	"testing"
)

func TestRecommend(t *testing.T) {
	for _, c := range []struct {
		inUse          []string
		targets, twice []string
	}{
		{nil, nil, nil},
		{[]string{"Nobody"}, nil, nil},
		{[]string{"Claude Code"}, []string{"claude-code"}, nil},
		{[]string{"Qwen Code"}, []string{"qwen-code"}, nil},
		{[]string{"Codex"}, []string{"agents"}, nil},
		{[]string{"Gemini CLI"}, []string{"gemini"}, nil},
		{[]string{"Claude Code", "Codex"}, []string{"claude-code", "agents"}, nil},
		{[]string{"Claude Code", "Gemini CLI"}, []string{"claude-code", "gemini"}, nil},
		{[]string{"Codex", "Gemini CLI"}, []string{"agents"}, nil},
		{[]string{"Codex", "Cursor"}, []string{"agents", "cursor"}, nil},
		{[]string{"Copilot CLI", "Kiro"}, []string{"github", "kiro"}, nil},
		{[]string{"Claude Code", "Codex", "Copilot CLI"}, []string{"claude-code", "agents"}, []string{"Copilot CLI"}},
		{Measured(), []string{"claude-code", "agents"}, []string{"OpenCode", "Copilot CLI", "Kilo"}},
	} {
		r := Recommend(c.inUse)
		if !slices.Equal(r.Targets, c.targets) || !slices.Equal(r.Twice, c.twice) || r.Unreached != nil {
			t.Errorf("Recommend(%q) = %+v, want targets %q, twice %q", c.inUse, r, c.targets, c.twice)
		}
	}
}

// Whatever the clients in use, the recommendation reaches each of them, and names
// exactly those that read two of its directories.
func TestRecommendReachesEveryClient(t *testing.T) {
	for set := 0; set < 1<<len(All); set += 7 {
		var inUse []string
		for i, c := range All {
			if set&(1<<i) != 0 {
				inUse = append(inUse, c.Name)
			}
		}
		r := Recommend(inUse)
		for _, c := range All {
			if !slices.Contains(inUse, c.Name) {
				continue
			}
			n := 0
			for _, tg := range r.Targets {
				if slices.Contains(c.Reads, Dir(tg)) {
					n++
				}
			}
			if n == 0 || (n > 1) != slices.Contains(r.Twice, c.Name) {
				t.Fatalf("Recommend(%q) = %+v: %s reads %d of the targets", inUse, r, c.Name, n)
			}
		}
	}
}
