//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// gitEnv gives the bench's git commits a fixed author, apart from the
// machine's git configuration.
var gitEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
	"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com"}

func mustGit(dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), gitEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		check(fmt.Errorf("git %v: %v: %s", args, err, out))
	}
}

// prepareGitSource writes a repository of n skill directories under skills/,
// tagged v1, reached as file://, and the workspaces that declare it.
func (b *bench) prepareGitSource(n int) sourceWorkspaces {
	dir := filepath.Join(b.tmp, fmt.Sprintf("gitsource-%d", n))
	repo := filepath.Join(dir, "repo")
	check(workspacegen.WriteSkillDirs(repo, n))
	check(os.Remove(filepath.Join(repo, "skillsync.yaml")))
	mustGit(repo, "init", "-q", "-b", "main")
	mustGit(repo, "add", "-A")
	mustGit(repo, "commit", "-q", "-m", "skills")
	mustGit(repo, "tag", "v1")
	remote := "file://" + repo
	w := sourceWorkspaces{n: n, kind: "git", fetchScenario: "git clone --depth 1 of the tag", fetch: func(i int) run {
		clone := filepath.Join(dir, fmt.Sprintf("clone-%d", i))
		return run{dir: dir, argv: []string{"git", "clone", "-q", "--depth", "1", "--branch", "v1", remote, clone}}
	}}
	b.prepareSource(&w, dir, "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  sources:\n    - name: catalog\n      git: "+remote+"\n      ref: v1\n      path: skills\n      allow: [{finding: executable}, {finding: binary}]\n")
	return w
}

// renderGitSource is the section of the report on git sources.
func renderGitSource(results []result, sizes string, runs int) string {
	return renderSource(results, "A git source", "git", fmt.Sprintf("A repository of N skill directories (those of the whole-skills workspaces) under skills/, tagged v1, "+
		"reached as file://; a workspace declares it as a source (`-gitsource %s`, medians of %d runs after %d warm-up run, the two rows of each group timed in turn).", sizes, runs, warmup),
		"git clone")
}
