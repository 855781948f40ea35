package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// ConfigFile is the project's MCP configuration the clients read (Claude Code,
// Cursor and others): where init finds the servers, and a source that names no
// command or url is found.
const ConfigFile = ".mcp.json"

// Config is what ConfigFile configures: each server by its name; nil when the
// workspace has no ConfigFile.
type Config map[string]Server

// ReadConfig reads and parses ConfigFile in root. A file that is no JSON is an
// error naming its line.
func ReadConfig(root workspacefs.FS) (Config, error) {
	data, err := root.ReadRegular(ConfigFile, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ConfigFile, workspacefs.Cause(err))
	}
	return ParseConfig(data)
}

// ParseConfig parses the content of ConfigFile.
func ParseConfig(data []byte) (Config, error) {
	var config struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &config); err != nil {
		return nil, fmt.Errorf("%s: %w", ConfigFile, jsonError(data, err))
	}
	out := Config{}
	for name, s := range config.MCPServers {
		out[name] = Server{Name: name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
	}
	return out, nil
}

// Names lists the servers of c, sorted.
func (c Config) Names() []string {
	names := make([]string, 0, len(c))
	for name := range c {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// jsonError names the line of a JSON syntax error.
func jsonError(data []byte, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		line := 1 + strings.Count(string(data[:min(int(syntax.Offset), len(data))]), "\n")
		return fmt.Errorf("line %d: %v", line, err)
	}
	return err
}

// Configuring lists, for each MCP server a client configuration of the workspace
// names, the files that name it. A skill names a tool by its server's name, and
// a client has the tool only if its configuration names the server so. A file
// that does not parse names nothing: it is that client's to report.
func Configuring(root workspacefs.FS) map[string][]string {
	out := map[string][]string{}
	for _, c := range clients.MCPConfigs() {
		data, err := root.ReadRegular(c.File, 1<<20)
		if err != nil {
			continue
		}
		var file map[string]json.RawMessage
		var servers map[string]json.RawMessage
		if json.Unmarshal(data, &file) != nil || json.Unmarshal(file[c.Key], &servers) != nil {
			continue
		}
		for name := range servers {
			out[name] = append(out[name], c.File)
		}
	}
	return out
}

// ServerOf is how to reach src, one of reg's sources: as spec.mcpSources says,
// else as config (nil when there is no ConfigFile) configures the server by name.
func ServerOf(reg *registry.Registry, src registry.MCPSource, config Config) (Server, error) {
	if src.Command != "" || src.URL != "" {
		where := func(keys ...string) string {
			if reg == nil {
				return registry.ConfigName + " (spec.mcpSources " + src.Name + " " + strings.Join(keys, " ") + ")"
			}
			return reg.MCPSourceAt(src.Name, keys...).String()
		}
		return Server{Name: src.Name, Command: src.Command, Args: src.Args, Env: src.Env, URL: src.URL, Headers: src.Headers, Where: where}, nil
	}
	if config == nil {
		return Server{}, fmt.Errorf("MCP server %q: no %s here, and spec.mcpSources gives no command or url for it", src.Name, ConfigFile)
	}
	s, ok := config[src.Name]
	if !ok {
		return Server{}, fmt.Errorf("MCP server %q is not in %s; name it as mcpServers there does, or give its command or url in spec.mcpSources", src.Name, ConfigFile)
	}
	return s, nil
}
