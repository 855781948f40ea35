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
var ConfigFile = clients.ServerConfig(false).File

// maxConfigSize bounds a client configuration read: a user's Claude Code
// configuration keeps much besides its servers.
const maxConfigSize = 16 << 20

// Config is what an MCP configuration file configures: each server by its name,
// and the file, relative to the root it was read in.
type Config struct {
	File    string
	Servers map[string]Server // nil when there is no such file
}

// ReadConfig reads and parses file, clients.ServerConfig's, in root. A file that
// is no JSON is an error naming its line.
func ReadConfig(root workspacefs.FS, file string) (Config, error) {
	data, err := root.ReadRegular(file, maxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{File: file}, nil
	}
	if err != nil {
		return Config{File: file}, fmt.Errorf("%s: %w", file, workspacefs.Cause(err))
	}
	return ParseConfig(file, data)
}

// ParseConfig parses the content of the MCP configuration file.
func ParseConfig(file string, data []byte) (Config, error) {
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
		return Config{File: file}, fmt.Errorf("%s: %w", file, jsonError(data, err))
	}
	out := Config{File: file, Servers: map[string]Server{}}
	for name, s := range config.MCPServers {
		where := func(keys ...string) string {
			return file + " (mcpServers." + name + "." + strings.Join(keys, ".") + ")"
		}
		out.Servers[name] = Server{Name: name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers, Where: where}
	}
	return out, nil
}

// Names lists the servers of c, sorted.
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for name := range c.Servers {
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
// (with user, of the user's home) names, the files that name it. A skill names a
// tool by its server's name, and a client has the tool only if its configuration
// names the server so. A file that does not parse names nothing: it is that
// client's to report.
func Configuring(root workspacefs.FS, user bool) map[string][]string {
	out := map[string][]string{}
	for _, c := range clients.MCPConfigs(user) {
		data, err := root.ReadRegular(c.File, maxConfigSize)
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
// else as config configures the server by name.
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
	if config.Servers == nil {
		return Server{}, fmt.Errorf("MCP server %q: no %s here, and spec.mcpSources gives no command or url for it", src.Name, config.File)
	}
	s, ok := config.Servers[src.Name]
	if !ok {
		return Server{}, fmt.Errorf("MCP server %q is not in %s; name it as mcpServers there does, or give its command or url in spec.mcpSources", src.Name, config.File)
	}
	return s, nil
}
