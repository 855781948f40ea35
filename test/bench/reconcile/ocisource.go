//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/skillsync/skillsync/internal/testkit/ociregistry"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// orasVersion is the oras CLI the OCI series compares with, built from its
// module into the bench's temporary directory.
const orasVersion = "v1.3.6"

// installOras builds the oras CLI into dir and returns its path.
func installOras(dir string) string {
	cmd := exec.Command("go", "install", "oras.land/oras/cmd/oras@"+orasVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		check(fmt.Errorf("go install oras %s: %v: %s", orasVersion, err, out))
	}
	return filepath.Join(dir, "oras")
}

// prepareOCISource publishes a catalog of n skill directories to reg with
// skillsync publish, and writes the workspaces that declare it.
func (b *bench) prepareOCISource(n int, reg *ociregistry.Registry, oras string) sourceWorkspaces {
	dir := filepath.Join(b.tmp, fmt.Sprintf("ocisource-%d", n))
	dockerConfig := filepath.Join(dir, "docker")
	check(os.MkdirAll(dockerConfig, 0o755))
	env := []string{"DOCKER_CONFIG=" + dockerConfig}
	ref := fmt.Sprintf("%s/bench/catalog-%d:v1", reg.Host, n)
	publisher := filepath.Join(dir, "publisher")
	check(workspacegen.WriteSkillDirs(publisher, n))
	b.mustRun(publisher, []string{b.bin, "publish", "oci://" + ref}, env...)
	w := sourceWorkspaces{n: n, kind: "OCI", env: env, fetchScenario: "oras pull of the tag", fetch: func(i int) run {
		pulled := filepath.Join(dir, fmt.Sprintf("pull-%d", i))
		return run{dir: dir, argv: []string{oras, "pull", "--plain-http", "--no-tty", "-o", pulled, ref}, env: env}
	}}
	b.prepareSource(&w, dir, "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  sources:\n    - name: catalog\n      oci: "+ref+"\n      allow: [{finding: executable}, {finding: binary}]\n")
	return w
}

// renderOCISource is the section of the report on OCI sources.
func renderOCISource(results []result, sizes string, runs int) string {
	return renderSource(results, "An OCI source", "OCI", fmt.Sprintf("A catalog of N skill directories (those of the whole-skills workspaces) that `skillsync publish` pushed, a layer a skill, "+
		"to go-containerregistry's in-memory registry on 127.0.0.1 in the bench's process; a workspace declares it as a source (`-ocisource %s`, medians of %d runs "+
		"after %d warm-up run, the two rows of each group timed in turn). The floor is the oras CLI %s, which fetches the same layers and unpacks them into folders.", sizes, runs, warmup, orasVersion),
		"oras pull")
}
