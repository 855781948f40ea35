//go:build e2e

package e2e

import (
	"encoding/json"
	"html"
	"strings"

	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// transcript is what one client run sent the model, across all its requests, in a
// shape common to the Anthropic and OpenAI request bodies.
type transcript struct {
	texts []string // every system and message text block, in order
	tools []string // every tool name offered
}

type requestBody struct {
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func readTranscript(reqs []mockapi.Request) transcript {
	var tr transcript
	for _, r := range reqs {
		var body requestBody
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		tr.texts = append(tr.texts, mockapi.ContentTexts(body.System)...)
		for _, m := range body.Messages {
			tr.texts = append(tr.texts, mockapi.ContentTexts(m.Content)...)
		}
		for _, tool := range body.Tools {
			tr.tools = append(tr.tools, tool.Name+tool.Function.Name)
		}
	}
	return tr
}

// block returns the first text that starts with prefix.
func (tr transcript) block(prefix string) (string, bool) {
	for _, t := range tr.texts {
		if strings.HasPrefix(t, prefix) {
			return t, true
		}
	}
	return "", false
}

// mentions reports whether any text, HTML entities decoded, contains s.
func (tr transcript) mentions(s string) bool {
	for _, t := range tr.texts {
		if strings.Contains(t, s) || strings.Contains(html.UnescapeString(t), s) {
			return true
		}
	}
	return false
}

func (tr transcript) offersTool(name string) bool {
	for _, t := range tr.tools {
		if t == name {
			return true
		}
	}
	return false
}
