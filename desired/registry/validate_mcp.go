package registry

import (
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/skillsync/skillsync/clients"
)

// envReference is a value read from the environment when the server is started.
var envReference = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)

func (v *validator) mcpSources() {
	cfg := v.reg.config
	names := map[string]bool{}
	snapshots := map[string]string{}
	for i, src := range v.reg.Config.Spec.MCPSources {
		at := func(keys ...string) place {
			return cfg.at(append([]string{"spec", "mcpSources", strconv.Itoa(i)}, keys...)...)
		}
		switch {
		case src.Name == "":
			v.add(at(), "name the server as your clients do (its key under mcpServers in .mcp.json)", "MCP source %d has no name", i+1)
		case !isMCPName(src.Name):
			v.add(at("name"), "use letters, digits, _ and -", "MCP server name %q is not valid", src.Name)
		case names[src.Name]:
			v.add(at("name"), "list each server once", "MCP source %q is listed twice", src.Name)
		}
		names[src.Name] = true
		if src.Command != "" && src.URL != "" {
			v.add(at("url"), "a server is a command or a URL, not both", "MCP source %q has both command and url", src.Name)
		}
		if u, err := url.Parse(src.URL); err == nil && u.User != nil {
			v.add(at("url"), "give the credential in a header read from the environment, as headers: {Authorization: \"${VAR}\"}, so that no secret is in a file",
				"the url of MCP source %q holds a user name or password", src.Name)
		}
		for key, value := range src.Headers {
			if !envReference.MatchString(value) {
				v.add(at("headers", key), "write ${VAR} and set VAR in the environment, so that no secret is in a file",
					"header %s of MCP source %q holds a value, not a ${VAR} reference", key, src.Name)
			}
		}
		for j, pattern := range append(append([]string{}, src.Include...), src.Exclude...) {
			if _, err := path.Match(pattern, ""); err != nil {
				key, k := "include", j
				if j >= len(src.Include) {
					key, k = "exclude", j-len(src.Include)
				}
				v.add(at(key, strconv.Itoa(k)), "use *, ? and [ ] as in shell patterns", "tool pattern %q is not valid", pattern)
			}
		}
		v.skillSelectors(src, func(j int, key string) place { return at("skills", strconv.Itoa(j), key) })
		v.publishedSkills(src, at)
		snapshot, ok := v.reg.SnapshotPath(src)
		v.selectedTools(src, snapshot, func(j int) place { return at("skills", strconv.Itoa(j), "tool") })
		switch {
		case !ok:
			v.add(at("snapshot"), "give snapshot: a path a registry pattern matches, such as registry/mcp-"+src.Name+".yaml",
				"no registry pattern names a file for the snapshot of %q", src.Name)
		case snapshots[snapshot] != "":
			v.add(at("snapshot"), "give each source a snapshot of its own", "MCP sources %q and %q share the snapshot %s", snapshots[snapshot], src.Name, snapshot)
		case !v.matchedByRegistry(snapshot):
			v.add(at("snapshot"), "a snapshot is registry input: name a path one of spec.registry's patterns matches",
				"the snapshot %s of %q is matched by no registry pattern, so nothing would read it", snapshot, src.Name)
		case writtenBySkillsync(snapshot):
			v.add(at("snapshot"), "put it beside the other registry files",
				"the snapshot %s of %q is where skillsync writes skills or keeps its state", snapshot, src.Name)
		}
		snapshots[snapshot] = src.Name
	}
}

// skillSelectors checks what a refresh cannot: the selectors as written. Whether
// a tool's input has the argument is known only once the server lists it.
func (v *validator) skillSelectors(src MCPSource, at func(j int, key string) place) {
	named := map[string]bool{}
	for j, sk := range src.Skills {
		pattern := IsToolPattern(sk.Tool)
		switch _, err := path.Match(sk.Tool, ""); {
		case pattern && err != nil:
			v.add(at(j, "tool"), "use *, ? and [ ] as in shell patterns", "tool pattern %q is not valid", sk.Tool)
		case !pattern && !isMCPToolName(sk.Tool):
			v.add(at(j, "tool"), "name a tool of the server ("+mcpToolNameRule+"), or match names with *, ? and [ ]", "tool %q is not a valid MCP tool name", sk.Tool)
		case !pattern && named[sk.Tool]:
			v.add(at(j, "tool"), "give each tool one selector", "tool %q has a selector already", sk.Tool)
		}
		if !pattern {
			named[sk.Tool] = true
		}
		switch {
		case sk.Alias != "" && pattern:
			v.add(at(j, "alias"), "leave alias out: each tool the pattern matches takes its own name; give a tool that needs another one a selector of its own",
				"alias %q is given for the pattern %q, which can match more than one tool", sk.Alias, sk.Tool)
		case sk.Alias != "" && !ValidAlias(sk.Alias):
			v.add(at(j, "alias"), "use lowercase letters, digits and single hyphens, at most 64 characters", "alias %q is not a valid skill name", sk.Alias)
		case sk.Alias == "" && !pattern && isMCPToolName(sk.Tool) && !ValidAlias(DerivedAlias(sk.Tool)):
			v.add(at(j, "tool"), "give the selector an alias: lowercase letters, digits and single hyphens, at most 64 characters",
				"the alias the tool %q would take, %q, is not a valid skill name", sk.Tool, DerivedAlias(sk.Tool))
		}
	}
}

// selectedTools checks that no selector names a tool the snapshot records that
// include and exclude leave out: the source would say two things of it. A tool
// the snapshot does not record has no skill until a refresh records it, as a
// selector may wait for a tool the server is yet to list. The problem is
// brought by snapshot, which records the tool.
func (v *validator) selectedTools(src MCPSource, snapshot string, at func(j int) place) {
	for j, sk := range src.Skills {
		if IsToolPattern(sk.Tool) || !v.reg.RecordsTool(src.Name, sk.Tool) || src.SelectsTool(sk.Tool) {
			continue
		}
		n := len(v.problems)
		v.add(at(j), "take it in include, or drop the selector", "tool %q is left out by the include and exclude patterns of %s", sk.Tool, src.Name)
		for i := n; i < len(v.problems); i++ {
			v.problems[i].broughtBy = snapshot
		}
	}
}

func (v *validator) matchedByRegistry(rel string) bool {
	for _, pattern := range v.reg.RegistryPatterns() {
		if whole, _ := MatchPattern(pattern, rel); whole {
			return true
		}
	}
	return false
}

// writtenBySkillsync says rel is in a target directory or the state directory.
func writtenBySkillsync(rel string) bool {
	if strings.HasPrefix(rel, ".skillsync/") || strings.HasPrefix(rel, "../") {
		return true
	}
	for _, t := range clients.Targets {
		if strings.HasPrefix(strings.ToLower(rel), strings.ToLower(t.Dir)+"/") {
			return true
		}
	}
	return false
}
