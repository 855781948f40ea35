package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// userConfigDir is the directory of the user workspace's config, under the
// operating system's per-user configuration directory.
const userConfigDir = "skillsync"

// userWorkspace is where the user workspace is: its root, the home directory,
// whose personal skill directories it keeps, and its config, relative to the
// root, in the user's config directory (~/.config/skillsync on Linux,
// ~/Library/Application Support/skillsync on macOS, %AppData%\skillsync on
// Windows).
func userWorkspace() (root, config string, err error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", "", usageError("--user: %v", err)
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", "", usageError("--user: %v", err)
	}
	dir := filepath.Join(base, userConfigDir)
	rel, err := filepath.Rel(home, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", "", usageError("--user keeps its config in %s, which is outside the home directory %s; set XDG_CONFIG_HOME to a directory inside it", dir, home)
	}
	config = filepath.ToSlash(filepath.Join(rel, registry.ConfigName))
	if strings.ContainsAny(config, `*?[\`) {
		return "", "", usageError("--user keeps its config in %s, whose path holds a glob character (* ? [ or \\) that registry globs would take as a pattern; set XDG_CONFIG_HOME to a plainer directory", dir)
	}
	if info, err := workspacefs.StatIn(home, registry.ConfigName); err == nil && info.Mode().IsRegular() {
		return "", "", usageError("--user: %s holds %s, a project workspace that keeps the same directories as the user workspace; move that workspace out of the home directory first",
			home, registry.ConfigName)
	}
	return home, config, nil
}

// notTheUserHome refuses root, a project workspace's, when it is the home
// directory and the user workspace is there too: both would keep the same skill
// directories, and each would delete the other's skills as orphans. The user
// workspace refuses the same pair from its side (userWorkspace).
func notTheUserHome(root string) error {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil // no home directory: no user workspace to meet
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return nil
	}
	atRoot, rootErr := workspacefs.StatIn(root, ".")
	atHome, homeErr := workspacefs.StatIn(home, ".")
	if rootErr != nil || homeErr != nil || !os.SameFile(atRoot, atHome) {
		return nil
	}
	userConfig := filepath.Join(base, userConfigDir, registry.ConfigName)
	if info, err := workspacefs.StatIn(filepath.Dir(userConfig), registry.ConfigName); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	return usageError("%s is your home directory, whose skill directories the user workspace (%s) keeps: a project workspace there would delete the user workspace's skills, and it the project's; move the project into a folder of its own",
		root, userConfig)
}

// config is the workspace's config file relative to its root: the user
// workspace's with --user, else the root's own skillsync.yaml.
func (g *globals) config() string {
	if g.user {
		return g.userConfig
	}
	return registry.ConfigName
}

// invocation is how a hint names skillsync acting on this workspace.
func (g *globals) invocation() string {
	if g.user {
		return "skillsync --user"
	}
	return "skillsync"
}

// request is a pass over the workspace at root through sys, with the profile
// and config the command line and environment choose; check plans and writes
// nothing.
func (g *globals) request(sys workspacefs.System, root string, check bool) controller.Request {
	return controller.Request{System: sys, Root: root, ConfigFile: g.config(), ProfileFlag: g.profile,
		ProfileEnv: os.Getenv(desired.ProfileEnv), Check: check, Sources: g.sourceReader()}
}
