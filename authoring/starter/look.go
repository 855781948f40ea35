package starter

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
	"github.com/skillsync/skillsync/sources/mcp"
)

// Found is what a directory holds that init starts from.
type Found struct {
	// InUse are the clients found in use, each with its evidence.
	InUse map[string][]string
	// Servers are the MCP servers mcp.ConfigFile names, sorted.
	Servers []string
	// HandWritten are the SKILL.md files people wrote in the target directories.
	HandWritten []string
}

// Look reads dir, which need not exist, for what init starts from. lookPath is
// exec.LookPath in production. A malformed mcp.ConfigFile is an error: the servers it
// names are what the skills will call.
func Look(sys workspacefs.System, dir string, lookPath func(string) (string, error)) (Found, error) {
	found := Found{InUse: map[string][]string{}}
	root, err := sys.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		root = nil
	} else if err != nil {
		return Found{}, err
	}
	var evidence map[string][]string
	if root != nil {
		defer root.Close()
		evidence = observed.Evidence(root, lookPath)
		if found.Servers, err = servers(root); err != nil {
			return Found{}, err
		}
		if found.HandWritten, err = handWritten(sys, dir); err != nil {
			return Found{}, err
		}
	} else {
		evidence = onPath(lookPath)
	}
	for _, p := range found.HandWritten {
		if owner := ownerOf(p); owner != "" {
			evidence[owner] = append(evidence[owner], p)
		}
	}
	for name, ev := range evidence {
		if len(ev) > 0 {
			found.InUse[name] = ev
		}
	}
	return found, nil
}

// ownerOf is the client whose own skill directory holds p: a skill a person wrote
// there says the client is used.
func ownerOf(p string) string {
	for _, t := range clients.Targets {
		if strings.HasPrefix(p, t.Dir+"/") {
			return t.Owner
		}
	}
	return ""
}

// onPath is the evidence of a directory that does not exist yet: programs on PATH.
func onPath(lookPath func(string) (string, error)) map[string][]string {
	out := map[string][]string{}
	for _, c := range clients.All {
		for _, t := range c.Tools {
			if _, err := lookPath(t); err == nil {
				out[c.Name] = append(out[c.Name], t+" on PATH")
			}
		}
	}
	return out
}

func servers(root workspacefs.FS) ([]string, error) {
	config, err := mcp.ReadConfig(root, mcp.ConfigFile)
	if err != nil {
		return nil, fmt.Errorf("%w; init reads the names of your MCP servers from it (fix it, or move it aside and run init again)", err)
	}
	return config.Names(), nil
}

func handWritten(sys workspacefs.System, dir string) ([]string, error) {
	var dirs []string
	for _, t := range clients.Targets {
		dirs = append(dirs, t.Dir)
	}
	st, err := observed.Scan(sys, dir, dirs)
	if err != nil {
		return nil, err
	}
	return st.HandWrittenSkills(), nil
}
