//go:build reliability && linux

package reliability

// The whole-skill part of the crash suite: skills declared with spec.dir, whose
// supporting files (scripts, references, binary assets, subfolders) are copied
// beside the generated SKILL.md and owned only through that SKILL.md's manifest.
// TestCrashSafety puts them in its old and new states next to the capabilities;
// this file makes them and holds the checks that only they need.
//
// Byte-for-byte old-or-new (crashCheckKilled) is not enough for them: a
// supporting file can hold exactly its old or new bytes and still be lost to
// skillsync, when the SKILL.md on disk does not name it. The next run then takes
// it for a person's file and reports a conflict (or, where the skill no longer
// wants it, leaves it for good). Which SKILL.md is on disk at a kill is decided by
// the apply order (controller/apply/order.go), so that order is what
// crashStranded checks, kill by kill.
//
// Verified on a scratch copy of the repository (never in the real tree), at
// b388a05 with removeTemp reading up to banner.MaxSupportingFileSize (as 422c3db
// does; before, a leftover of the 8 MiB asset could not be cleaned up),
// RELIABILITY_KILLS=40, seed 1: 0 of 40 kills failed, and then
//
//   - orderOf putting the SKILL.md of a directory with supporting changes among
//     the first writes (o.writes instead of o.manifests), before the supporting
//     deletes: 11 of 40 kills failed, each with hundreds of "stranded:
//     .../SKILL.md (the new one) does not name it, so it is a person's file: kept
//     for good by the next run", and after the next run "not in the new state"
//     and "directory left behind". (An earlier version of the suite also saw
//     "next run: conflict ... notes.txt ... edited by hand": the new SKILL.md
//     put in place before the update it names.)
//   - orderOf putting the supporting creates among the first writes, before their
//     SKILL.md: 18 of 40 kills failed, with "stranded: .../SKILL.md (the old one)
//     does not name it ...: a conflict in the next run", the next run's exit 3
//     and its conflict lines, and in directories created whole "temp file ... in
//     a skill directory without a SKILL.md", which survived the next run. With
//     the check of the marks' order since added, the timed runs fail first:
//     "the whole skills' supporting creates (step 4, ...) began 325ms before
//     their supporting deletes".
//
// The windows of the whole skills' steps are a few per cent of the apply phase
// each, so a quarter of the kills are aimed at them (crashWholeSteps).

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
)

const (
	crashWholeSkills = 64 // whole skills in the old state; k%8 picks what the new state does to each
	crashWholeNew    = 8  // whole skills only the new state has, created whole
	// The whole skills' directories sort after the capabilities' (crash-task-*),
	// so the first file Apply writes, whose directory crashStart watches, stays a
	// capability's.
	crashWholePrefix = "crash-whole-"
)

// crashWholeSteps are two directories that only one step of the apply order
// touches first, so their first change times it (crashStart's marks): kind 7's
// data/, which nothing is written into, empties with the supporting deletes
// (step 2); kind 4's references/ gains a folder with the supporting creates (step
// 4). Nothing else of theirs changes before.
var crashWholeSteps = [2]string{".agents/skills/" + crashWholeName(7) + "/data", ".agents/skills/" + crashWholeName(4) + "/references"}

// crashSrcFile is a file of a skill directory the registry names with spec.dir.
type crashSrcFile struct {
	data []byte
	exec bool
}

func crashWholeName(k int) string { return fmt.Sprintf("%s%03d", crashWholePrefix, k) }

// crashBinary is an asset that is no text: NUL bytes, bytes above 0x7f, no line
// structure, its length depending on k and version.
func crashBinary(k, version int) []byte {
	b := make([]byte, 600+37*k+211*version)
	x := uint32(k)*2654435761 + uint32(version)*40503 + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	copy(b, []byte{0x89, 'P', 'N', 'G', 0, 0, 0xff, 0xfe})
	return b
}

// crashBigSize is the size of the one large supporting file: a write of more than
// a page can be cut short by a SIGKILL (the kernel checks for it between pages),
// leaving a temp file that holds some of the content but not all, which the small
// files never leave. It takes a few milliseconds to stage, so some kills land in
// it; one skill has it, in three targets, to keep the copies small.
const crashBigSize = 8 << 20

func crashBig() []byte {
	b := make([]byte, crashBigSize)
	x := uint64(0x5eed)
	for i := 0; i+8 <= len(b); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	return b
}

// crashWholeFiles is what the source directory of whole skill k holds in the old
// or the new state (nil: the state has no such skill). The eight kinds, by k%8:
//
//	0  unchanged
//	1  an exec script and a binary asset change, a reference is replaced by
//	   another, and tool gains its execute bit (a change of mode alone)
//	2  loses two folders whole (data/ with two files, sub/ with one) and a file,
//	   gains a binary and a script; sub becomes a file and notes.txt a folder
//	3  removed whole
//	4  gains a script and a file two folders deep; tool loses its execute bit;
//	   skill 4 alone also gains an 8 MiB asset (crashBig)
//	5  two files change, and the SKILL.md's own text
//	6  had no supporting file, gains two
//	7  loses every supporting file, keeps its SKILL.md
//
// and k >= crashWholeSkills are created whole.
func crashWholeFiles(k int, newState bool) map[string]crashSrcFile {
	kind, version := k%8, 0
	if newState {
		version = 1
	}
	switch {
	case k >= crashWholeSkills && !newState:
		return nil
	case k >= crashWholeSkills:
		kind = -1 // the full set, as in the old state of the others
	case kind == 3 && newState:
		return nil
	}
	name := crashWholeName(k)
	description := fmt.Sprintf("Whole skill %03d of the crash suite.", k)
	if kind == 5 && newState {
		description = fmt.Sprintf("Whole skill %03d of the crash suite, described anew so SKILL.md changes on its own too.", k)
	}
	files := map[string]crashSrcFile{
		"SKILL.md": {data: []byte(fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nRun scripts/run.sh, then read references/guide.md.\n", name, description))},
	}
	if kind == 6 && !newState {
		return files
	}
	if kind == 7 && newState {
		return files
	}
	text := func(format string, args ...any) crashSrcFile {
		return crashSrcFile{data: []byte(fmt.Sprintf(format, args...))}
	}
	script := func(format string, args ...any) crashSrcFile {
		return crashSrcFile{data: []byte(fmt.Sprintf("#!/bin/sh\n"+format, args...)), exec: true}
	}
	files["scripts/run.sh"] = script("echo whole %03d\n", k)
	files["references/guide.md"] = text("# Guide %03d\n\nStep one.\n", k)
	if kind == 6 {
		return files // what kind 6 gains
	}
	files["assets/logo.bin"] = crashSrcFile{data: crashBinary(k, 0)}
	files["notes.txt"] = text("notes of %03d\n", k)
	files["tool"] = crashSrcFile{data: []byte(fmt.Sprintf("tool %03d, no shebang: the mode alone makes it a script\n", k)), exec: kind == 4}
	files["sub/x.md"] = text("x of %03d\n", k)
	files["data/a.json"] = text(`{"a": %d}`+"\n", k)
	files["data/b.json"] = text(`{"b": %d}`+"\n", k)
	if !newState {
		return files
	}
	switch kind {
	case 1:
		files["scripts/run.sh"] = script("set -eu\necho whole %03d, revised\nexit 0\n", k)
		files["assets/logo.bin"] = crashSrcFile{data: crashBinary(k, version)}
		delete(files, "references/guide.md")
		files["references/new.md"] = text("# New reference %03d\n", k)
		files["tool"] = crashSrcFile{data: files["tool"].data, exec: true}
	case 2:
		delete(files, "data/a.json")
		delete(files, "data/b.json")
		delete(files, "notes.txt")
		delete(files, "sub/x.md")
		files["assets/icon.bin"] = crashSrcFile{data: crashBinary(k+1000, 0)}
		files["scripts/new.sh"] = script("echo new %03d\n", k)
		files["sub"] = text("sub of %03d, a file now\n", k)
		files["notes.txt/inner.md"] = text("inner of %03d, in a folder now\n", k)
	case 4:
		files["scripts/extra.sh"] = script("echo extra %03d\n", k)
		files["references/more/deep.md"] = text("deep %03d\n", k)
		files["tool"] = crashSrcFile{data: files["tool"].data}
		if k == 4 {
			files["assets/big.bin"] = crashSrcFile{data: crashBig()}
		}
	case 5:
		files["references/guide.md"] = text("# Guide %03d\n\nStep one.\nStep two, added so the length changes.\n", k)
		files["notes.txt"] = text("notes of %03d, longer now\n", k)
	}
	return files
}

// crashWriteWholeSkills replaces ws/skill-src and the registry files of the whole
// skills with the old or the new state's. The registry directory is
// crashWriteRegistry's, so it runs after that.
func crashWriteWholeSkills(ws string, newState bool) error {
	src := filepath.Join(ws, "skill-src")
	if err := os.RemoveAll(src); err != nil {
		return err
	}
	var docs []string
	for k := range crashWholeSkills + crashWholeNew {
		files := crashWholeFiles(k, newState)
		if files == nil {
			continue
		}
		name := crashWholeName(k)
		for rel, f := range files {
			p := filepath.Join(src, name, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			perm := os.FileMode(0o644)
			if f.exec {
				perm = 0o755
			}
			if err := os.WriteFile(p, f.data, perm); err != nil {
				return err
			}
		}
		docs = append(docs, fmt.Sprintf("apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: %s}\nspec:\n  dir: ../skill-src/%s\n", name, name))
	}
	for start := 0; start < len(docs); start += crashPerFile {
		name := filepath.Join(ws, "registry", fmt.Sprintf("whole-%02d.yaml", start/crashPerFile))
		if err := os.WriteFile(name, []byte(strings.Join(docs[start:min(start+crashPerFile, len(docs))], "---\n")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// crashWholeDir is the whole skill's directory p is in ("" for any other path):
// <target>/skills/crash-whole-NNN.
func crashWholeDir(p string) string {
	parts := strings.SplitN(p, "/", 4)
	if len(parts) < 3 || !strings.HasPrefix(parts[2], crashWholePrefix) {
		return ""
	}
	return strings.Join(parts[:3], "/")
}

// crashManifestLine is a manifest line as internal/banner/manifest.go documents
// it. The suite reads manifests with its own parser rather than banner.Manifest,
// so that a bug there cannot hide a stranded file from the check.
var crashManifestLine = regexp.MustCompile(`^# skillsync: file sha256=([0-9a-f]{64}) mode=(755|644) path=(\S.*)$`)

// crashManifest is what the manifest of a generated SKILL.md names: the digest of
// each supporting file by its path in the skill directory. The lines follow the
// mark line (# skillsync: path=...) directly; the first other line ends them.
func crashManifest(skill []byte) map[string]string {
	named := map[string]string{}
	lines := strings.Split(string(skill), "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "# skillsync: path=") {
			continue
		}
		for _, l := range lines[i+1:] {
			m := crashManifestLine.FindStringSubmatch(l)
			if m == nil {
				break
			}
			named[m[3]] = m[1]
		}
		break
	}
	return named
}

func crashDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// crashStranded finds, in the tree a kill left, the supporting files of whole
// skills that the next run would not take as skillsync's: it proves a supporting
// file its own only when the SKILL.md beside it names it, and then takes it as
// in sync when its content has the digest named, or already is the content wanted
// (an update that landed before its SKILL.md). Every other file there is a
// person's: a conflict where the skill wants the path, else a file kept for good.
// A file the manifest names and the new state wants with the same bytes is still
// a person's if the manifest does not name it (whole_skill.txtar: "no manifest
// of skillsync's ... names it"), so naming is required, not just the right bytes.
//
// The SKILL.md counts only when intact, which here means it is the old or the new
// one byte for byte; crashCheckKilled reports any other. A temp file in a whole
// skill's directory that has no SKILL.md must be that SKILL.md being staged, or
// the old one its delete moved aside: a supporting file's would mean it is being
// written before the SKILL.md naming it, and the next run may not know it for a
// leftover either (its SKILL.md is what tells a supporting file's temp file from
// a person's).
func crashStranded(got, old, want crashTree) []string {
	var problems []string
	for p, data := range got.files {
		dir := crashWholeDir(p)
		if dir == "" || p == dir+"/SKILL.md" {
			continue
		}
		rel := strings.TrimPrefix(p, dir+"/")
		skill, present := got.files[dir+"/SKILL.md"]
		if banner.IsTempName(path.Base(p)) {
			if !present && !bytes.HasPrefix(want.files[dir+"/SKILL.md"], data) && !bytes.Equal(old.files[dir+"/SKILL.md"], data) {
				problems = append(problems, fmt.Sprintf("%s: temp file (%d bytes) in a skill directory without a SKILL.md, and neither a beginning of one nor the old one: a supporting file staged before the SKILL.md that names it", p, len(data)))
			}
			continue
		}
		o, inOld := old.files[dir+"/SKILL.md"]
		n, inNew := want.files[dir+"/SKILL.md"]
		switch {
		case !present:
			problems = append(problems, fmt.Sprintf("%s: stranded: its directory has no SKILL.md, so nothing names it (a person's file to the next run)", p))
			continue
		case !(inOld && bytes.Equal(skill, o)) && !(inNew && bytes.Equal(skill, n)):
			problems = append(problems, fmt.Sprintf("%s: its SKILL.md is neither the old nor the new one, so its manifest proves nothing", p))
			continue
		}
		digest, named := crashManifest(skill)[rel]
		switch {
		case !named:
			what := "a conflict in the next run (the skill wants it)"
			if _, wanted := want.files[p]; !wanted {
				what = "kept for good by the next run (the skill no longer wants it)"
			}
			problems = append(problems, fmt.Sprintf("%s: stranded: %s/SKILL.md (the %s one) does not name it, so it is a person's file: %s",
				p, dir, crashWhich(skill, o, inOld), what))
		case digest == crashDigest(data):
		case bytes.Equal(data, want.files[p]) && got.modes[p] == want.modes[p]:
			// An update put in place before its SKILL.md: the plan takes it as done.
		default:
			problems = append(problems, fmt.Sprintf("%s: named with another digest and not the content wanted either (%d bytes, mode %v): the next run sees it edited by hand",
				p, len(data), got.modes[p]))
		}
	}
	sort.Strings(problems)
	return problems
}

func crashWhich(skill, old []byte, inOld bool) string {
	if inOld && bytes.Equal(skill, old) {
		return "old"
	}
	return "new"
}

// crashWholeMoment is what a kill caught of the whole skills' directories: the
// moments each step of the apply order exists for. split counts directories with
// some of their changes made and some not; ahead the supporting files updated
// before the SKILL.md that names them (step 1 done, step 3 not: the plan's
// "already as desired"); gone the files deleted that the SKILL.md on disk still
// names (step 2 done, step 3 not); pending the files a new SKILL.md names that are
// not written yet (step 3 done, step 4 not); torn the temp files holding some of
// a new file's content but not all (a write cut short, see crashBigSize).
type crashWholeMoment struct{ split, ahead, gone, pending, torn int }

func crashWholeProgress(got, old, want crashTree) crashWholeMoment {
	var m crashWholeMoment
	type progress struct{ done, todo bool }
	dirs := map[string]*progress{}
	for _, t := range []crashTree{old, want} {
		for p := range t.files {
			dir := crashWholeDir(p)
			_, inOld := old.files[p]
			_, inNew := want.files[p]
			_, present := got.files[p]
			if dir == "" || inOld && inNew && old.same(p, want, p) {
				continue // not a whole skill's, or no change
			}
			if dirs[dir] == nil {
				dirs[dir] = &progress{}
			}
			switch {
			case present == inNew && (!present || got.same(p, want, p)):
				dirs[dir].done = true
			case present == inOld && (!present || got.same(p, old, p)):
				dirs[dir].todo = true
			}
		}
	}
	for _, pr := range dirs {
		if pr.done && pr.todo {
			m.split++
		}
	}
	for p, skill := range got.files {
		dir := crashWholeDir(p)
		if dir == "" || p != dir+"/SKILL.md" {
			continue
		}
		for rel, digest := range crashManifest(skill) {
			f := dir + "/" + rel
			data, present := got.files[f]
			_, inOld := old.files[f]
			_, inNew := want.files[f]
			switch {
			case present && digest != crashDigest(data):
				m.ahead++
			case !present && inOld && !inNew:
				m.gone++
			case !present && inNew && !inOld:
				m.pending++
			}
		}
	}
	for p, data := range got.files {
		if crashWholeDir(p) == "" || !banner.IsTempName(path.Base(p)) || len(data) == 0 {
			continue
		}
		for q, n := range want.files {
			if path.Dir(q) == path.Dir(p) && len(data) < len(n) && bytes.HasPrefix(n, data) {
				m.torn++
				break
			}
		}
	}
	return m
}

// crashWholeCounts counts the changes to the whole skills' supporting files.
func crashWholeCounts(old, want crashTree) (creates, updates, deletes int) {
	for p, n := range want.files {
		if dir := crashWholeDir(p); dir == "" || p == dir+"/SKILL.md" {
			continue
		}
		o, ok := old.files[p]
		switch {
		case !ok:
			creates++
		case !bytes.Equal(o, n) || old.modes[p] != want.modes[p]:
			updates++
		}
	}
	for p := range old.files {
		if dir := crashWholeDir(p); dir != "" && p != dir+"/SKILL.md" {
			if _, ok := want.files[p]; !ok {
				deletes++
			}
		}
	}
	return creates, updates, deletes
}

// crashWholeCheckerCatches makes sure the whole-skill checks flag what a wrong
// apply order leaves, on trees made by hand from the real old and new ones: a
// supporting file created before the SKILL.md naming it, a SKILL.md written
// before the supporting delete it no longer names, a supporting file of a skill
// removed whole outliving its SKILL.md, a script updated without its execute bit,
// and a file named but neither its named nor its wanted content.
func crashWholeCheckerCatches(t *testing.T, old, want crashTree) {
	t.Helper()
	// One directory of each kind, in one target.
	pick := func(k int) string { return ".claude/skills/" + crashWholeName(k) }
	gains, loses, removed, flips := pick(4), pick(2), pick(3), pick(1)
	for _, p := range []string{gains + "/scripts/extra.sh", loses + "/notes.txt", removed + "/notes.txt", flips + "/scripts/run.sh", flips + "/assets/logo.bin"} {
		if _, inOld := old.files[p]; !inOld {
			if _, inNew := want.files[p]; !inNew {
				t.Fatalf("self-check: %s is in neither state; the whole skills are not what crashWholeFiles says", p)
			}
		}
	}
	got := crashClone(old)
	// 1. A create before its SKILL.md: the old SKILL.md does not name it.
	got.files[gains+"/scripts/extra.sh"] = want.files[gains+"/scripts/extra.sh"]
	got.modes[gains+"/scripts/extra.sh"] = want.modes[gains+"/scripts/extra.sh"]
	// 2. The new SKILL.md before a supporting delete: notes.txt is named no more.
	got.files[loses+"/SKILL.md"] = want.files[loses+"/SKILL.md"]
	// 3. A removed skill's SKILL.md deleted before its supporting files.
	delete(got.files, removed+"/SKILL.md")
	// 4. An exec bit lost in an update, the bytes right.
	got.files[flips+"/scripts/run.sh"] = want.files[flips+"/scripts/run.sh"]
	got.modes[flips+"/scripts/run.sh"] = 0o644
	// 5. Named, but half written.
	got.files[flips+"/assets/logo.bin"] = want.files[flips+"/assets/logo.bin"][:100]

	stranded := crashStranded(got, old, want)
	var in2, in3 int
	for _, s := range stranded {
		switch {
		case strings.HasPrefix(s, loses+"/"):
			in2++
		case strings.HasPrefix(s, removed+"/"):
			in3++
		}
	}
	// Expected: extra.sh (1); notes.txt, and sub/x.md and data/*.json, which the
	// new SKILL.md of kind 2 names no more either (2); every supporting file of
	// the removed skill (3); run.sh, whose bytes are the wanted ones but not its
	// mode, which the next run takes for an edit by hand (4); logo.bin (5).
	wantIn3 := 0
	for p := range old.files {
		if strings.HasPrefix(p, removed+"/") && p != removed+"/SKILL.md" {
			wantIn3++
		}
	}
	if len(stranded) != 1+4+wantIn3+1+1 || in2 != 4 || in3 != wantIn3 {
		t.Fatalf("self-check: the stranded-file checker found %d problems (%d in %s, %d in %s) in a tree with %d:\n%s",
			len(stranded), in2, loses, in3, removed, 1+4+wantIn3+1+1, strings.Join(stranded, "\n"))
	}
	killed, _ := crashCheckKilled(got, old, want)
	var flipped bool
	for _, s := range killed {
		flipped = flipped || strings.HasPrefix(s, flips+"/scripts/run.sh:")
	}
	if !flipped {
		t.Fatalf("self-check: the after-kill checker let %s/scripts/run.sh pass with its new bytes and its execute bit lost:\n%s", flips, strings.Join(killed, "\n"))
	}
	if crashWholeProgress(got, old, want).split == 0 {
		t.Fatal("self-check: crashWholeProgress saw no directory caught midway in a tree with several")
	}
}

// crashClone is a deep enough copy of a tree to edit: the maps, not the bytes.
func crashClone(t crashTree) crashTree {
	c := crashTree{files: map[string][]byte{}, modes: map[string]fs.FileMode{}, dirs: map[string]bool{}}
	for p, b := range t.files {
		c.files[p] = b
	}
	for p, m := range t.modes {
		c.modes[p] = m
	}
	for d := range t.dirs {
		c.dirs[d] = true
	}
	return c
}
