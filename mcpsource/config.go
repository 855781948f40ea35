package mcpsource

import (
	"encoding/json"
	"fmt"

	"github.com/skillsync/skillsync/desired/registry"
)

// ConfigFile is the project's MCP configuration the clients read (Claude Code,
// Cursor and others), where a source that names no command or url is found.
const ConfigFile = ".mcp.json"

// ServerOf is how to reach src: as spec.mcpSources says, else as mcpConfig (the
// content of ConfigFile, nil when there is none) configures the server by name.
func ServerOf(src registry.MCPSource, mcpConfig []byte) (Server, error) {
	if src.Command != "" || src.URL != "" {
		return Server{Name: src.Name, Command: src.Command, Args: src.Args, Env: src.Env, URL: src.URL, Headers: src.Headers}, nil
	}
	if mcpConfig == nil {
		return Server{}, fmt.Errorf("MCP server %q: no %s here, and spec.mcpSources gives no command or url for it", src.Name, ConfigFile)
	}
	var config struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(mcpConfig, &config); err != nil {
		return Server{}, fmt.Errorf("%s: %v", ConfigFile, err)
	}
	s, ok := config.MCPServers[src.Name]
	if !ok {
		return Server{}, fmt.Errorf("MCP server %q is not in %s; name it as mcpServers there does, or give its command or url in spec.mcpSources", src.Name, ConfigFile)
	}
	return Server{Name: src.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}, nil
}
