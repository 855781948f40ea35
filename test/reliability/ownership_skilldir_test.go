//go:build reliability && linux

package reliability

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/observed"
)

// The ownership property suite's whole skill directories: how a random
// workspace declares them, edits them, and what the oracle makes of supporting
// files.

// ownSupportClass is what the manifest rule of docs/ownership.md makes of a
// regular file in a skill directory that is not its SKILL.md or a side file.
type ownSupportClass int

const (
	// ownSupportPerson: no SKILL.md with a banner for its own path names it, or
	// it is larger than any supporting file: never changed.
	ownSupportPerson ownSupportClass = iota
	// ownSupportOwned: an intact SKILL.md names it with its digest.
	ownSupportOwned
	// ownSupportModified: an intact SKILL.md names it with another digest: edited
	// by hand, kept until --force.
	ownSupportModified
	// ownSupportClaimed: only a SKILL.md edited by hand names it. A person's, as
	// ownSupportPerson is; but --force, restoring that SKILL.md, may take it for
	// written where it holds exactly what the skill wants (docs/ownership.md),
	// which changes nothing of it.
	ownSupportClaimed
)

// ownSupport classifies p in the snapshot t of the workspace.
func ownSupport(t ownTree, p string) ownSupportClass {
	dir := clients.SkillDirOf(p)
	if dir == "" || dir == p {
		return ownSupportPerson
	}
	rel := strings.TrimPrefix(p, dir+"/")
	if slices.Contains(ownSideFiles, rel) || !strings.Contains(rel, "/") && strings.EqualFold(rel, observed.SkillFile) {
		return ownSupportPerson
	}
	named, intact, ok := ownManifestOf(t, dir)
	m, isNamed := named[rel]
	e := t[p]
	if !ok || !isNamed || !e.mode.IsRegular() || e.size > banner.MaxSupportingFileSize {
		return ownSupportPerson
	}
	switch same := fmt.Sprintf("%x", e.sum) == m.digest; {
	case !intact:
		return ownSupportClaimed
	case same:
		return ownSupportOwned
	}
	return ownSupportModified
}

// ownNamedUnder reports whether the intact SKILL.md of the skill directory
// folder is in names a file under folder.
func ownNamedUnder(t ownTree, folder string) bool {
	dir := clients.SkillDirOf(folder)
	if dir == "" || dir == folder {
		return false
	}
	named, intact, _ := ownManifestOf(t, dir)
	if !intact {
		return false
	}
	for rel := range named {
		if strings.HasPrefix(path.Join(dir, rel), folder+"/") {
			return true
		}
	}
	return false
}

// ownManifestOf reads the SKILL.md of the skill directory dir as the snapshot t
// holds it: the files its manifest names, whether it is intact, and ok when it
// carries a banner for its own path at all.
func ownManifestOf(t ownTree, dir string) (named map[string]manifestNamed, intact, ok bool) {
	p := path.Join(dir, observed.SkillFile)
	e, has := t[p]
	if !has || !e.mode.IsRegular() || e.data == nil {
		return nil, false, false
	}
	rule := ownBannerRule(p, e.data)
	if rule == observed.Unowned {
		return nil, false, false
	}
	return readSkillManifest(e.data), rule == observed.Owned, true
}

// ownSupportTemp reports whether p is what docs/ownership.md takes for a
// leftover anywhere in a skill directory skillsync looks through (its SKILL.md
// is missing or carries a banner for its own path): named exactly like its temp
// files, and holding the start of a generated file, or a supporting file staged
// under the name its content gives it, or in a folder of that name (the skill
// directory or one in it) whatever it holds. Any other file of that name is a
// person's.
func ownSupportTemp(t ownTree, root, p string) bool {
	dir := clients.SkillDirOf(p)
	if dir == "" || dir == p || !banner.IsTempName(path.Base(p)) || !t[p].mode.IsRegular() {
		return false
	}
	if _, present := t[path.Join(dir, observed.SkillFile)]; present {
		if _, _, ok := ownManifestOf(t, dir); !ok {
			return false
		}
	}
	if slices.ContainsFunc(strings.Split(strings.TrimPrefix(path.Dir(p), path.Dir(dir)), "/"), banner.IsTempName) {
		return true
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
	return err == nil && (banner.IsPartial(data) || path.Base(p) == ownStagedName(data))
}

// ownStagedName is the temp name docs/ownership.md gives a supporting file
// staged with content data: .skillsync-<the first 16 hex digits of its
// SHA-256>.tmp.
func ownStagedName(data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf(".skillsync-%x.tmp", sum[:8])
}

// checkWrites: every file a pass wrote or re-moded in a skill directory holds
// what the registry wants there, with the execute bit it wants; a supporting file
// it wrote is afterwards named with its digest by the intact SKILL.md beside it
// (else no later run could prove it skillsync's); and a SKILL.md it wrote names no
// person's file, and leaves every hand-edited supporting file in its directory
// named with the digest it has (written while one is kept, the manifest would
// drop it or claim it: the whole directory is held instead). Until --force, a
// hand-edited file changing is checkKept's to report.
func (c *ownershipCase) checkWrites(prev, now ownTree, forced bool, when string) {
	for _, p := range ownSorted(now) {
		a := now[p]
		b, had := prev[p]
		// A target directory's git file lists the skills a pass writes, which
		// depends on what it finds (a skill a person's SKILL.md takes leaves every
		// target): the banner rule covers it, not the registry alone.
		if dir := clients.SkillDirOf(p); dir == "" || dir == p || !a.mode.IsRegular() || banner.IsTempName(path.Base(p)) ||
			had && b.sum == a.sum && b.mtime.Equal(a.mtime) && b.mode == a.mode {
			continue
		}
		if _, mine := c.protected[p]; mine {
			continue
		}
		if _, kept := c.modified[p]; kept && !forced {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(p)))
		if err != nil {
			c.failf("%s: read %s: %v", when, p, err)
			continue
		}
		want, wanted := c.g.want[p]
		switch {
		case !wanted:
			c.failf("%s: wrote %s, which the registry does not want", when, p)
			continue
		case !bytes.Equal(data, want):
			c.failf("%s: wrote %s with %d bytes other than the %d the registry wants there", when, p, len(data), len(want))
			continue
		}
		if exec, supporting := c.g.wantExec[p]; supporting {
			if (a.mode&0o100 != 0) != exec {
				c.failf("%s: wrote %s with mode %04o, the registry wants it executable: %v", when, p, a.mode.Perm(), exec)
			}
			if got := ownSupport(now, p); got != ownSupportOwned {
				c.failf("%s: wrote the supporting file %s, which no intact manifest names with its digest afterwards", when, p)
			}
		}
		if dir := clients.SkillDirOf(p); p == path.Join(dir, observed.SkillFile) {
			c.checkManifestWritten(now, dir, readSkillManifest(data), forced, when)
		}
	}
}

// checkManifestWritten checks the manifest of the SKILL.md a pass wrote in dir.
func (c *ownershipCase) checkManifestWritten(now ownTree, dir string, named map[string]manifestNamed, forced bool, when string) {
	for rel, m := range named {
		q := path.Join(dir, rel)
		e, mine := c.protected[q]
		if !mine || e.mode.IsDir() {
			continue
		}
		// Restoring a SKILL.md a person edited, --force takes a file only its
		// edited manifest named as written where it holds exactly what the skill
		// wants: nothing of anyone's changes by that.
		if forced && c.claimed[q] && now[q].mode.IsRegular() && fmt.Sprintf("%x", now[q].sum) == m.digest &&
			(now[q].mode&0o100 != 0) == m.exec && c.g.wantExec[q] == m.exec {
			continue
		}
		c.failf("%s: wrote %s/%s, whose manifest names the person's file %s", when, dir, observed.SkillFile, rel)
	}
	if forced {
		return
	}
	for _, q := range ownSorted(c.modified) {
		rel, in := strings.CutPrefix(q, dir+"/")
		if !in || rel == observed.SkillFile || slices.Contains(ownSideFiles, rel) {
			continue
		}
		if m, ok := named[rel]; !ok || m.digest != fmt.Sprintf("%x", now[q].sum) {
			c.failf("%s: wrote %s/%s while the hand-edited %s beside it is kept", when, dir, observed.SkillFile, q)
		}
	}
}

// ownDirSkill is a skill directory under skills/ as its author keeps it.
type ownDirSkill struct {
	files    map[string]dirSrcFile // by path in the directory, SKILL.md among them
	version  int                   // bumped by every edit, so edited files differ
	declared bool                  // registry/dir-<name>.yaml declares it
	targets  string                // the targets its declaration names, or ""
	// defect is what makes the directory one skillsync refuses (exit 2, nothing
	// written), as written by writeDirSkill; "" when it is fine.
	defect string
	// onDisk is the digest of the files and defect last written, so that a
	// directory is rewritten only when it changed (a refused one can hold
	// 16 MiB or a thousand files).
	onDisk [sha256.Size]byte
}

// ownSupportPool are the files a skill directory may hold beside its SKILL.md:
// a script with a #! line and one executable by its mode only, a binary file,
// folders nested two deep, an empty file, Codex's agents/openai.yaml and a file
// beside it, a SKILL.md in a folder (a supporting file, not the skill's), and
// notes.md and scripts/mine.sh, which people put in generated skill directories
// too.
var ownSupportPool = []string{"scripts/run.sh", "scripts/helper.py", "reference.md", "notes.md", "assets/logo.bin",
	"references/deep/guide.md", "data/empty.txt", "agents/notes.md", "agents/openai.yaml", "scripts/mine.sh", "examples/SKILL.md"}

// ownPersonPaths are where people put files in a generated skill directory,
// relative to it: beside SKILL.md, in the folders a skill directory has, and in
// folders of their own.
var ownPersonPaths = []string{"notes.md", "scripts/mine.sh", "assets/photo.png", "references/deep/mine.md",
	"agents/notes.md", "my-folder/a/b.txt", "README", ".env"}

// ownDirDefects are what a skill directory cannot hold or say.
var ownDirDefects = []string{"symlink", "case twins", "unknown front matter key", "name differs from the directory",
	"front matter not a mapping", "agents/openai.yaml Codex would misread", "temp-file name", "file over 16 MiB", "over 1000 entries"}

// declareDir makes name a skill directory the registry declares, new or edited
// since the last declaration.
func (g *ownGenerator) declareDir(name string) {
	sk := g.dirs[name]
	if sk == nil {
		sk = &ownDirSkill{files: map[string]dirSrcFile{}}
		g.dirs[name] = sk
		for range 1 + g.rng.IntN(5) {
			g.addSupport(name, sk)
		}
	} else if !g.chance(3) {
		g.editDirSource(name, sk)
	}
	sk.declared = true
	sk.targets = ""
	if g.chance(4) {
		sk.targets = strings.Join(g.targetsNonEmpty(), ", ")
	}
	sk.files[observed.SkillFile] = dirSrcFile{data: g.skillSource(name, sk)}
	g.kinds = append(g.kinds, "skill directory declared")
}

// skillSource is the SKILL.md of the skill directory name.
func (g *ownGenerator) skillSource(name string, sk *ownDirSkill) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n", name, ownQuote(ownPick(g, ownTitles)))
	if g.chance(3) {
		b.WriteString("allowed-tools: Bash(git:*)\n")
	}
	if g.chance(4) {
		// A hidden skill: Codex gets agents/openai.yaml beside the supporting
		// files, agents/notes.md among them.
		b.WriteString("disable-model-invocation: true\n")
	}
	fmt.Fprintf(&b, "---\nSteps for %s, version %d: run scripts/run.sh, read reference.md.\n", name, sk.version)
	return []byte(b.String())
}

// addSupport adds a file from ownSupportPool the directory does not hold yet.
func (g *ownGenerator) addSupport(name string, sk *ownDirSkill) {
	rel := ownPick(g, ownSupportPool)
	if _, ok := sk.files[rel]; !ok {
		sk.files[rel] = g.supportContent(name, rel, sk.version)
	}
}

// supportContent is a version of the supporting file rel.
func (g *ownGenerator) supportContent(name, rel string, version int) dirSrcFile {
	if rel == "agents/openai.yaml" {
		// Codex's own file: written only into .agents/skills, with Codex's
		// policy added when the skill is kept from the model.
		return dirSrcFile{data: fmt.Appendf(nil, "interface:\n  display_name: \"%s %d\"\n", name, version)}
	}
	switch path.Ext(rel) {
	case ".sh":
		// Executable by its #! line, whatever its mode.
		return dirSrcFile{data: fmt.Appendf(nil, "#!/bin/sh\necho %s %d\n", name, version), exec: g.chance(2)}
	case ".py":
		return dirSrcFile{data: fmt.Appendf(nil, "print('%s %d')\n", name, version), exec: g.chance(2)}
	case ".bin":
		data := make([]byte, 1+g.rng.IntN(600))
		for i := range data {
			data[i] = byte(g.rng.UintN(256))
		}
		// NUL, CR LF and bytes that are no UTF-8, whatever the draw.
		return dirSrcFile{data: append([]byte{0, '\r', '\n', 0xff, byte(version)}, data...)}
	case ".txt":
		if version == 0 {
			return dirSrcFile{data: []byte{}}
		}
	}
	return dirSrcFile{data: fmt.Appendf(nil, "# %s\n\n%s, version %d.\n", rel, name, version)}
}

// editDirSource changes a skill directory as its author does: a file's bytes or
// execute bit, a file added or removed, a folder removed, the SKILL.md's body.
func (g *ownGenerator) editDirSource(name string, sk *ownDirSkill) {
	sk.version++
	var support []string
	for _, rel := range ownSorted(sk.files) {
		if rel != observed.SkillFile {
			support = append(support, rel)
		}
	}
	kind := ""
	switch n := g.rng.IntN(8); {
	case n <= 2 && len(support) > 0:
		rel := ownPick(g, support)
		sk.files[rel] = g.supportContent(name, rel, sk.version)
		kind = "source file edited"
	case n == 3 && len(support) > 0:
		delete(sk.files, ownPick(g, support))
		kind = "source file removed"
	case n == 4 && len(support) > 0:
		rel := ownPick(g, support)
		f := sk.files[rel]
		f.exec = !f.exec
		sk.files[rel] = f
		kind = "source file chmodded"
	case n == 5 && len(support) > 0:
		// A whole folder goes, files in subfolders with it.
		dir := path.Dir(ownPick(g, support))
		for _, rel := range support {
			if dir == "." && !strings.Contains(rel, "/") || dir != "." && strings.HasPrefix(rel, dir+"/") {
				delete(sk.files, rel)
			}
		}
		kind = "source folder removed"
	case n == 6:
		kind = "SKILL.md edited"
	default:
		g.addSupport(name, sk)
		kind = "source file added"
	}
	sk.files[observed.SkillFile] = dirSrcFile{data: g.skillSource(name, sk)}
	g.logf("skills/%s: %s (version %d)", name, kind, sk.version)
	g.kinds = append(g.kinds, kind)
}

// breakDir gives one declared skill directory a defect.
func (g *ownGenerator) breakDir() {
	var declared []string
	for _, name := range ownSorted(g.dirs) {
		if g.dirs[name].declared && g.dirs[name].defect == "" {
			declared = append(declared, name)
		}
	}
	if len(declared) == 0 {
		return
	}
	name := ownPick(g, declared)
	// The two that write many megabytes or files are rare.
	defect := ownPick(g, ownDirDefects[:len(ownDirDefects)-2])
	if g.chance(8) {
		defect = ownPick(g, ownDirDefects[len(ownDirDefects)-2:])
	}
	g.dirs[name].defect = defect
	g.logf("skills/%s: refused (%s)", name, defect)
	g.kinds = append(g.kinds, "skill directory refused: "+defect)
}

// brokenNow is why the registry is invalid as it is now written, or "".
func (g *ownGenerator) brokenNow() string {
	if g.regBroken != "" {
		return g.regBroken
	}
	for _, name := range ownSorted(g.dirs) {
		if sk := g.dirs[name]; sk.declared && sk.defect != "" {
			return "skill directory skills/" + name + ": " + sk.defect
		}
	}
	return ""
}

// writeDirSkills writes every skill directory under skills/ and a registry file
// for each one declared, and removes the registry files of the others.
func (g *ownGenerator) writeDirSkills() error {
	old, err := filepath.Glob(filepath.Join(g.root, "registry", "dir-*.yaml"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for _, name := range ownSorted(g.dirs) {
		sk := g.dirs[name]
		if err := g.writeDirSkill(name, sk); err != nil {
			return err
		}
		if !sk.declared {
			continue
		}
		doc := fmt.Sprintf("apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: %s}\nspec:\n  dir: ../skills/%s\n", name, name)
		if sk.targets != "" {
			doc += "  targets: [" + sk.targets + "]\n"
		}
		if err := os.WriteFile(filepath.Join(g.root, "registry", "dir-"+name+".yaml"), []byte(doc), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeDirSkill writes the skill directory name as it is, with its defect.
func (g *ownGenerator) writeDirSkill(name string, sk *ownDirSkill) error {
	h := sha256.New()
	for _, rel := range ownSorted(sk.files) {
		fmt.Fprintf(h, "%s\x00%v\x00%d\x00", rel, sk.files[rel].exec, len(sk.files[rel].data))
		h.Write(sk.files[rel].data)
	}
	fmt.Fprintf(h, "%s\x00", sk.defect)
	var sum [sha256.Size]byte
	if h.Sum(sum[:0]); sum == sk.onDisk {
		return nil
	}
	sk.onDisk = sum
	dir := filepath.Join(g.root, "skills", name)
	files := maps.Clone(sk.files)
	skill := files[observed.SkillFile]
	switch sk.defect {
	case "case twins":
		files["Notes.md"], files["notes.md"] = dirSrcFile{data: []byte("upper\n")}, dirSrcFile{data: []byte("lower\n")}
	case "unknown front matter key":
		skill.data = bytes.Replace(skill.data, []byte("\nname:"), []byte("\nhooks: {}\nname:"), 1)
	case "name differs from the directory":
		skill.data = bytes.Replace(skill.data, []byte("\nname: "+name+"\n"), []byte("\nname: "+name+"-other\n"), 1)
	case "front matter not a mapping":
		skill.data = []byte("---\n- a\n- b\n---\nbody\n")
	case "agents/openai.yaml Codex would misread":
		files["agents/openai.yaml"] = dirSrcFile{data: []byte("theme: dark\n")}
	case "temp-file name":
		files[g.tempName()] = dirSrcFile{data: []byte("not a temp file\n")}
	case "file over 16 MiB":
		files["assets/huge.bin"] = dirSrcFile{data: make([]byte, banner.MaxSupportingFileSize+1)}
	case "over 1000 entries":
		for i := range 1001 {
			files[fmt.Sprintf("many/%04d.txt", i)] = dirSrcFile{data: []byte{}}
		}
	}
	files[observed.SkillFile] = skill
	if err := writeSkillDirSource(dir, files); err != nil {
		return err
	}
	if sk.defect == "symlink" {
		return os.Symlink("../../skillsync.yaml", filepath.Join(dir, "link.md"))
	}
	return nil
}

// collectSupporting adds to generated the files the manifests of the generated
// SKILL.md files name, as they are on disk.
func (g *ownGenerator) collectSupporting() {
	for _, p := range ownSorted(g.generated) {
		dir := path.Dir(p)
		if path.Base(p) != observed.SkillFile || !ownSkillDir(dir) {
			continue
		}
		for rel := range readSkillManifest(g.generated[p]) {
			if data, err := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(path.Join(dir, rel)))); err == nil {
				g.generated[path.Join(dir, rel)] = data
			}
		}
	}
}

// edit is what people do between two passes: edit, add, remove and chmod the
// files of the skill directories the registry reads, declare one or drop one,
// break one or mend it; hand-edit, chmod and remove the supporting files and
// SKILL.md files skillsync wrote, and put files of their own beside them, at
// paths the skill wants and at paths it does not.
func (g *ownGenerator) edit() {
	g.logf("edits:")
	if err := g.collectGenerated(); err != nil {
		g.logf("  collect: %v", err)
	}
	sources := false
	for range 1 + g.rng.IntN(3) {
		switch n := g.rng.IntN(10); {
		case n < 3 && g.withDirs:
			sources = g.editSomeSource() || sources
		case n == 3 && g.withDirs:
			sources = g.redeclare() || sources
		case n == 4 && g.withDirs:
			sources = g.breakOrMend() || sources
		case n == 5 && g.withDirs:
			sources = g.gainWherePersonIs() || sources
		default:
			g.editGenerated()
		}
	}
	if sources {
		if err := g.writeDirSkills(); err != nil {
			g.logf("  write skill directories: %v", err)
		}
	}
	g.broken = g.brokenNow()
	if err := g.computeWant(); err != nil {
		g.logf("  want: %v", err)
	}
}

func (g *ownGenerator) declaredDirs() []string {
	var out []string
	for _, name := range ownSorted(g.dirs) {
		if g.dirs[name].declared {
			out = append(out, name)
		}
	}
	return out
}

// editSomeSource edits one declared skill directory.
func (g *ownGenerator) editSomeSource() bool {
	names := g.declaredDirs()
	if len(names) == 0 {
		return false
	}
	name := ownPick(g, names)
	g.editDirSource(name, g.dirs[name])
	return true
}

// redeclare drops a declared skill directory from the registry (every file it
// wrote goes; a person's stay), or declares one again.
func (g *ownGenerator) redeclare() bool {
	names := ownSorted(g.dirs)
	if len(names) == 0 {
		return false
	}
	name := ownPick(g, names)
	sk := g.dirs[name]
	switch {
	case sk.declared:
		sk.declared = false
		g.logf("  registry/dir-%s.yaml removed", name)
		g.kinds = append(g.kinds, "skill directory dropped")
	case !slices.Contains(g.used, name):
		sk.declared = true
		g.logf("  registry/dir-%s.yaml declared again", name)
		g.kinds = append(g.kinds, "skill directory declared again")
	default:
		return false
	}
	return true
}

// breakOrMend mends a skill directory's defect, or gives one a defect.
func (g *ownGenerator) breakOrMend() bool {
	for _, name := range g.declaredDirs() {
		if sk := g.dirs[name]; sk.defect != "" {
			g.logf("  skills/%s: mended (%s)", name, sk.defect)
			g.kinds = append(g.kinds, "skill directory mended")
			sk.defect = ""
			return true
		}
	}
	if !g.chance(3) {
		return false
	}
	g.breakDir()
	return true
}

// gainWherePersonIs puts a person's file in a generated skill directory at a
// path its skill directory then gains a file at: the skill wants a path a
// person's file holds, which holds the whole directory.
func (g *ownGenerator) gainWherePersonIs() bool {
	var skills []string
	for _, p := range ownSorted(g.generated) {
		if dir := clients.SkillDirOf(p); p == path.Join(dir, observed.SkillFile) && g.dirs[path.Base(dir)] != nil && g.dirs[path.Base(dir)].declared {
			skills = append(skills, dir)
		}
	}
	if len(skills) == 0 {
		return false
	}
	dir := ownPick(g, skills)
	name, rel := path.Base(dir), ownPick(g, ownSupportPool)
	sk := g.dirs[name]
	if _, has := sk.files[rel]; has {
		return false
	}
	g.writeFile(path.Join(dir, rel), []byte("mine, before the skill had it\n"), "person's file where a skill directory then gains one")
	sk.version++
	sk.files[rel] = g.supportContent(name, rel, sk.version)
	sk.files[observed.SkillFile] = dirSrcFile{data: g.skillSource(name, sk)}
	g.logf("  skills/%s: gains %s (version %d)", name, rel, sk.version)
	return true
}

// editGenerated edits a generated skill directory by hand.
func (g *ownGenerator) editGenerated() {
	var skills, support []string
	for _, p := range ownSorted(g.generated) {
		switch dir := clients.SkillDirOf(p); {
		case p == path.Join(dir, observed.SkillFile):
			skills = append(skills, p)
		case dir != "" && !slices.Contains(ownSideFiles, strings.TrimPrefix(p, dir+"/")):
			support = append(support, p)
		}
	}
	var wanted []string // supporting files wanted and not there
	for _, p := range ownSorted(g.wantExec) {
		if _, err := os.Lstat(filepath.Join(g.root, filepath.FromSlash(p))); err != nil {
			wanted = append(wanted, p)
		}
	}
	full := func(p string) string { return filepath.Join(g.root, filepath.FromSlash(p)) }
	switch n := g.rng.IntN(12); {
	case n == 0 && len(support) > 0:
		p := ownPick(g, support)
		g.writeFile(p, append(bytes.Clone(g.generated[p]), "\nedited by hand\n"...), "supporting file hand-edited between passes")
	case n == 1 && len(support) > 0:
		p := ownPick(g, support)
		mode := ownPick(g, ownModes)
		if os.Chmod(full(p), mode) == nil {
			g.logf("  chmod %04o %s", mode, p)
			g.kinds = append(g.kinds, "supporting file chmodded between passes")
		}
	case n == 2 && len(support) > 0:
		p := ownPick(g, support)
		if os.Remove(full(p)) == nil {
			g.logf("  rm %s", p)
			g.kinds = append(g.kinds, "supporting file removed between passes")
		}
	case n == 3 && len(wanted) > 0:
		p := ownPick(g, wanted)
		g.writeFile(p, []byte("mine, where the skill wants a file\n"), "person's file where a skill directory wants one")
	case n == 4 && len(skills) > 0:
		p := ownPick(g, skills)
		g.writeFile(p, append(bytes.Clone(g.generated[p]), "\nEdited by hand.\n"...), "SKILL.md with a manifest hand-edited between passes")
	case n == 5 && len(skills) > 0:
		p := ownPick(g, skills)
		g.writeFile(p, g.stampedWithManifest(p), "valid banner with a manifest of a person's making")
	case n == 6 && len(wanted) > 0:
		// A folder of a person's where the skill wants a file: a conflict.
		p := ownPick(g, wanted)
		if os.MkdirAll(full(p), 0o755) == nil {
			g.logf("  mkdir %s", p)
			g.kinds = append(g.kinds, "person's folder where a skill directory wants a file")
		}
	case n == 7 && len(skills) > 0:
		// An empty folder of a person's: it stays, empty.
		p := path.Join(path.Dir(ownPick(g, skills)), ownPick(g, []string{"drafts", "assets/new", "scripts/old", "agents/empty"}))
		if os.MkdirAll(full(p), 0o755) == nil {
			g.logf("  mkdir %s", p)
			g.kinds = append(g.kinds, "empty folder in a generated skill directory")
		}
	case n == 9 && len(skills) > 0:
		// docs/ownership.md's own example: a person adds a line naming a file of
		// theirs, with its digest, to a generated SKILL.md. The SKILL.md is then
		// edited by hand, and its manifest proves nothing: --force restores the
		// SKILL.md and must leave the file.
		p := ownPick(g, skills)
		mine := []byte("mine, named in a manifest line I added\n")
		rel := ownPick(g, []string{"mine.md", "scripts/mine.sh", "notes.md"})
		g.writeFile(path.Join(path.Dir(p), rel), mine, "person's file named by a manifest line they added")
		line := fmt.Sprintf("# skillsync: file sha256=%x mode=644 path=%s\n", sha256.Sum256(mine), rel)
		lines := bytes.SplitAfterN(g.generated[p], []byte("\n"), 4)
		if len(lines) == 4 {
			g.writeFile(p, slices.Concat(lines[0], lines[1], lines[2], []byte(line), lines[3]), "SKILL.md with a manifest line a person added")
		}
	case n == 8 && len(g.wantExec) > 0:
		// What a run killed before putting a supporting file in place leaves: the
		// file staged under the name its content gives it.
		p := ownPick(g, ownSorted(g.wantExec))
		if clients.SkillDirOf(p) != "" && os.MkdirAll(filepath.Dir(full(p)), 0o755) == nil {
			g.writeFile(path.Join(path.Dir(p), banner.StagedName(g.want[p])), g.want[p], "supporting file staged by an interrupted run")
		}
	case len(skills) > 0:
		p := path.Join(path.Dir(ownPick(g, skills)), ownPick(g, ownPersonPaths))
		data, kind := g.content(p)
		g.writeFile(p, data, kind+", in a generated skill directory between passes")
	}
}

// stampedWithManifest is a SKILL.md with a valid banner for p whose manifest a
// person wrote: it names files in the directory with their digest, with another
// digest, files that are not there, and sometimes breaks off at a malformed line
// (everything after it is no manifest line).
func (g *ownGenerator) stampedWithManifest(p string) []byte {
	dir := path.Dir(p)
	var entries []banner.ManifestEntry
	var malformed string
	for _, rel := range ownPersonPaths[:4] {
		data, err := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(path.Join(dir, rel))))
		sum := sha256.Sum256(data)
		if err != nil || g.chance(3) {
			sum[0] ^= 1
		}
		entries = append(entries, banner.ManifestEntry{Path: rel, Digest: fmt.Sprintf("%x", sum), Executable: g.chance(2)})
		if malformed == "" && g.chance(4) {
			malformed = ownPick(g, []string{"# skillsync: file sha256=abc mode=644 path=x\n", "# skillsync: file sha256=" +
				strings.Repeat("0", 64) + " mode=700 path=y\n", "# skillsync: file sha256=" + strings.Repeat("0", 64) + " mode=644 path=../up\n"})
			entries = append(entries, banner.ManifestEntry{Path: "--malformed--"})
		}
	}
	out, err := banner.Open(nil, "skill/"+path.Base(dir), p)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.Path == "--malformed--" {
			out = append(out, malformed...)
			continue
		}
		if out, err = banner.AppendManifest(out, []banner.ManifestEntry{e}); err != nil {
			return nil
		}
	}
	out = fmt.Appendf(out, "name: %s\ndescription: mine\n---\n\nA person's skill.\n", path.Base(dir))
	if banner.Seal(out) != nil {
		return nil
	}
	return out
}
