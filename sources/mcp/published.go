package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/internal/printable"
)

// SkillsExtension is what a server declares among its capabilities' extensions
// when it publishes skills.
const SkillsExtension = "io.modelcontextprotocol/skills"

// MaxSkills bounds how many skills one server may list, as MaxTools bounds tools.
const MaxSkills = 2000

// MaxSkillFile is the largest SKILL.md skillsync records: far more than any
// workflow's instructions, and it keeps a snapshot reviewable.
const MaxSkillFile = 1 << 20

// PublishedSkill is one skill a server publishes: its entry in skills/list, and
// its SKILL.md once read and verified against the entry.
type PublishedSkill struct {
	URI         string
	Name        string
	Frontmatter map[string]any
	// Files is the entry's manifest; nil when the server calls the skill's
	// content dynamic, so that nothing can be verified.
	Files   []SkillFile
	Content []byte
	// refused is why its SKILL.md could not be read or verified.
	refused error
}

// SkillFile is one file of a published skill's manifest.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Dynamic says the server publishes no digests for the skill.
func (s PublishedSkill) Dynamic() bool { return s.Files == nil }

// SkillMD is the manifest's entry for the skill's SKILL.md.
func (s PublishedSkill) SkillMD() SkillFile {
	for _, f := range s.Files {
		if f.URI == s.URI {
			return f
		}
	}
	return SkillFile{}
}

// publishes says the server declared the skills extension.
func publishes(session *mcp.ClientSession) bool {
	init := session.InitializeResult()
	if init == nil || init.Capabilities == nil {
		return false
	}
	_, ok := init.Capabilities.Extensions[SkillsExtension]
	return ok
}

var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// listSkills lists every skill the server publishes, page after page, up to
// MaxSkills, MaxPages and MaxListing, and refuses an entry the extension does
// not allow.
func listSkills(ctx context.Context, conn *extensionConn) ([]PublishedSkill, error) {
	var skills []PublishedSkill
	var pages pager
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Skills     []json.RawMessage `json:"skills"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := conn.call(ctx, "skills/list", params, &page); err != nil {
			return nil, err
		}
		size := 0
		for _, raw := range page.Skills {
			size += len(raw)
		}
		if err := pages.add(size); err != nil {
			return nil, fmt.Errorf("skills/list: %w", err)
		}
		for _, raw := range page.Skills {
			if len(skills) == MaxSkills {
				return nil, fmt.Errorf("skills/list: more than %d skills", MaxSkills)
			}
			sk, err := parseEntry(raw)
			if err != nil {
				return nil, fmt.Errorf("skills/list: %w", err)
			}
			skills = append(skills, sk)
		}
		if page.NextCursor == "" {
			return skills, nil
		}
		cursor = page.NextCursor
	}
}

// parseEntry reads one skill entry, checking what the extension requires of it.
func parseEntry(raw json.RawMessage) (PublishedSkill, error) {
	var entry struct {
		URI         string          `json:"uri"`
		Frontmatter map[string]any  `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &entry); err != nil {
		return PublishedSkill{}, fmt.Errorf("an entry is not a skill: %v", err)
	}
	dir, ok := strings.CutSuffix(entry.URI, "/SKILL.md")
	name, _ := entry.Frontmatter["name"].(string)
	_, described := entry.Frontmatter["description"].(string)
	switch {
	case strings.ContainsFunc(entry.URI, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || printable.Unsafe(r) }):
		return PublishedSkill{}, fmt.Errorf("the skill %q: its uri holds blanks or control characters", entry.URI)
	case !ok || dir == "":
		return PublishedSkill{}, fmt.Errorf("the skill %q: its uri does not end in /SKILL.md", entry.URI)
	case name == "" || !described:
		return PublishedSkill{}, fmt.Errorf("the skill %s: its frontmatter lacks a name or a description", entry.URI)
	case path.Base(dir) != name:
		return PublishedSkill{}, fmt.Errorf("the skill %s is named %q, not as its uri's last segment", entry.URI, name)
	}
	sk := PublishedSkill{URI: entry.URI, Name: name, Frontmatter: entry.Frontmatter}
	if string(entry.Resources) == `"dynamic"` {
		return sk, nil
	}
	if err := json.Unmarshal(entry.Resources, &sk.Files); err != nil || sk.Files == nil {
		return PublishedSkill{}, fmt.Errorf("the skill %s: resources is neither a list of files nor \"dynamic\"", entry.URI)
	}
	for _, f := range sk.Files {
		switch {
		case f.URI != entry.URI && !strings.HasPrefix(f.URI, dir+"/"):
			return PublishedSkill{}, fmt.Errorf("the skill %s lists %s, a file outside it", entry.URI, f.URI)
		case !digestPattern.MatchString(f.Digest) || f.Size < 0:
			return PublishedSkill{}, fmt.Errorf("the skill %s: the file %s has no sha256 digest and size", entry.URI, f.URI)
		}
	}
	if sk.SkillMD().URI == "" {
		return PublishedSkill{}, fmt.Errorf("the skill %s: its resources do not list its SKILL.md", entry.URI)
	}
	return sk, nil
}

// readSkill reads the SKILL.md of sk and verifies it against the entry: its size,
// its digest, and its frontmatter field by field.
func readSkill(ctx context.Context, session *mcp.ClientSession, sk PublishedSkill) ([]byte, error) {
	want := sk.SkillMD()
	res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: sk.URI})
	if err != nil {
		return nil, fmt.Errorf("resources/read %s: %w", sk.URI, err)
	}
	if len(res.Contents) != 1 {
		return nil, fmt.Errorf("resources/read %s: %d contents, not one file", sk.URI, len(res.Contents))
	}
	content := res.Contents[0].Blob
	if content == nil {
		content = []byte(res.Contents[0].Text)
	}
	sum := sha256.Sum256(content)
	switch {
	case int64(len(content)) != want.Size:
		return nil, fmt.Errorf("the skill %s: its SKILL.md is %d bytes, its entry says %d", sk.URI, len(content), want.Size)
	case "sha256:"+hex.EncodeToString(sum[:]) != want.Digest:
		return nil, fmt.Errorf("the skill %s: its SKILL.md does not match the digest of its entry", sk.URI)
	}
	front, _, err := splitSkillMD(content)
	if err != nil {
		return nil, fmt.Errorf("the skill %s: %w", sk.URI, err)
	}
	if !sameValue(front, map[string]any(sk.Frontmatter)) {
		return nil, fmt.Errorf("the skill %s: the frontmatter of its SKILL.md differs from its entry's", sk.URI)
	}
	return content, nil
}

// splitSkillMD parses a SKILL.md into its frontmatter and its body.
func splitSkillMD(content []byte) (map[string]any, string, error) {
	text := strings.ReplaceAll(string(content), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	front, body, closed := strings.Cut(rest, "\n---\n")
	if !ok || !closed {
		return nil, "", fmt.Errorf("its SKILL.md has no frontmatter between --- lines at the top")
	}
	var fields map[string]any
	if err := yaml.Unmarshal([]byte(front), &fields); err != nil {
		return nil, "", fmt.Errorf("the frontmatter of its SKILL.md: %v", err)
	}
	return fields, strings.TrimPrefix(body, "\n"), nil
}

// sameValue says a value of a SKILL.md's frontmatter, as YAML decodes it, is
// the one the entry sends as JSON. JSON has no timestamps: a YAML one (an
// unquoted date) is the same as the string of the same time in any form YAML
// reads as one, RFC 3339 included, or as its text, which a server that reads
// the frontmatter without timestamps sends.
func sameValue(front, entry any) bool {
	switch f := front.(type) {
	case time.Time:
		text, ok := entry.(string)
		var t time.Time
		return ok && yaml.Unmarshal([]byte(text), &t) == nil && t.Equal(f)
	case map[string]any:
		e, ok := entry.(map[string]any)
		if !ok || len(e) != len(f) {
			return false
		}
		for k, v := range f {
			if w, ok := e[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		e, ok := entry.([]any)
		if !ok || len(e) != len(f) {
			return false
		}
		for i := range f {
			if !sameValue(f[i], e[i]) {
				return false
			}
		}
		return true
	}
	x, errA := json.Marshal(front)
	y, errB := json.Marshal(entry)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
