package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/skillsync/skillsync/authoring/starter"
	"github.com/skillsync/skillsync/internal/testkit"
)

// scriptCommands are the commands the test binary acts as inside scripts.
var scriptCommands = map[string]func(){"skillsync": main, "mcptestserver": mcpTestServer, "mcpbadserver": mcpBadServer, "mcphttpserver": mcpHTTPServer}

// TestMain lets the test binary act as the skillsync command inside scripts.
func TestMain(m *testing.M) {
	if _, command := scriptCommands[strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")]; !command {
		moreScriptsAtOnce()
	}
	testscript.Main(m, scriptCommands)
}

// moreScriptsAtOnce lets two scripts per CPU run at once unless -parallel
// says otherwise: a script spends most of its time waiting for the processes
// it starts, so go test's default of one per CPU leaves the CPUs idle.
func moreScriptsAtOnce() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
}

// TestScripts runs the CLI scenarios in testdata/script. Each script starts with a
// copy of fixtures/example in $WORK/example, and $BINDIR names a directory holding
// skillsync alone, for a PATH on which no agent client is found. Custom commands
// (see scriptCmds):
//
//	exits N PROG [ARGS...]   run PROG, require exit status exactly N (stdout/stderr kept for stdout/stderr)
//	snapshot NAME DIR        backdate every file's mtime under DIR, then record the tree
//	unchanged NAME           the tree recorded as NAME is identical: same entries, kinds,
//	                         modes, bytes, inodes and mtimes (so nothing was rewritten)
//	replace FILE OLD NEW     replace every occurrence of OLD in FILE; fails when OLD is absent
//	uncomment FILE           replace a capabilities file init wrote with its example, uncommented
//	json FILE [SEG...] OP [WANT]
//	                         FILE (or stdout/stderr) must be one JSON value; SEG walks into it:
//	                         a key, an array index, or KEY=VALUE to pick the array element whose
//	                         field KEY is VALUE. OP is == (WANT is JSON, or a bare string),
//	                         #= (length of an array, object or string) or ? (exists).
//	absent TEXT PATH...      no file at or under any PATH holds TEXT (stdout and
//	                         stderr name the last command's output)
//	freeport VAR             set VAR to a free 127.0.0.1:PORT
//	[!] await PATH           wait until PATH exists (or no longer does)
//	await-text PATH TEXT     wait until the file at PATH holds TEXT
//	await-http URL CODE TEXT FILE
//	                         wait until URL answers CODE with a body holding TEXT; save it
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               scriptSetup,
		Cmds:                scriptCmds(),
	})
}

type scriptSnapshotsKey struct{}

func scriptSetup(env *testscript.Env) error {
	// The shared example workspace: every script finds a fresh copy of it at
	// $WORK/example.
	src := testkit.Fixture("example")
	dst := filepath.Join(env.WorkDir, "example")
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("script must not ship its own example/ (it is copied from %s)", src)
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return fmt.Errorf("copy fixture: %w", err)
	}
	env.Setenv("FIXTURE", src)
	self, err := exec.LookPath("skillsync")
	if err != nil {
		return err
	}
	env.Setenv("BINDIR", filepath.Dir(self))
	// testscript starts every script with an environment of its own; the race
	// detector's options (testkit's) still reach the commands it runs.
	env.Setenv("GORACE", os.Getenv("GORACE"))
	env.Values[scriptSnapshotsKey{}] = map[string]*scriptSnapshot{}
	return nil
}

func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exits":      scriptCmdExits,
		"snapshot":   scriptCmdSnapshot,
		"unchanged":  scriptCmdUnchanged,
		"replace":    scriptCmdReplace,
		"uncomment":  scriptCmdUncomment,
		"json":       scriptCmdJSON,
		"absent":     scriptCmdAbsent,
		"freeport":   scriptCmdFreeport,
		"await":      scriptCmdAwait,
		"await-text": scriptCmdAwaitText,
		"await-http": scriptCmdAwaitHTTP,
	}
}

// scriptCmdExits runs a program and requires one exact exit status.
func scriptCmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exits does not support !; state the expected exit status")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want < 0 {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			ts.Fatalf("exits: %s did not run: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// scriptSnapshotTime is the mtime every file gets when a snapshot is taken, so that any
// later write, even within the filesystem's timestamp granularity, is visible.
var scriptSnapshotTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

type scriptSnapshot struct {
	dir     string
	entries map[string]treeEntry
}

func scriptSnapshots(ts *testscript.TestScript) map[string]*scriptSnapshot {
	return ts.Value(scriptSnapshotsKey{}).(map[string]*scriptSnapshot)
}

func scriptCmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("snapshot does not support !")
	}
	if len(args) != 2 {
		ts.Fatalf("usage: snapshot NAME DIR")
	}
	dir := ts.MkAbs(args[1])
	// Backdate first: a write after this point always moves the mtime.
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		return os.Chtimes(p, scriptSnapshotTime, scriptSnapshotTime)
	})
	ts.Check(err)
	entries, err := readTree(dir)
	ts.Check(err)
	scriptSnapshots(ts)[args[0]] = &scriptSnapshot{dir: dir, entries: entries}
	ts.Logf("snapshot %s: %d entries under %s", args[0], len(entries), dir)
}

func scriptCmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: unchanged NAME")
	}
	snap, ok := scriptSnapshots(ts)[args[0]]
	if !ok {
		ts.Fatalf("unchanged: no snapshot named %q", args[0])
	}
	now, err := readTree(snap.dir)
	ts.Check(err)
	diffs := treeDiff(snap.entries, now)
	switch {
	case neg && len(diffs) == 0:
		ts.Fatalf("tree %s (snapshot %s) is unchanged, but a change was expected", snap.dir, args[0])
	case !neg && len(diffs) > 0:
		ts.Fatalf("tree %s changed since snapshot %s:\n\t%s", snap.dir, args[0], strings.Join(diffs, "\n\t"))
	case neg:
		ts.Logf("tree changed as expected:\n\t%s", strings.Join(diffs, "\n\t"))
	}
}

func scriptCmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("replace does not support !")
	}
	if len(args) != 3 || args[1] == "" {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	file := ts.MkAbs(args[0])
	data, err := os.ReadFile(file)
	ts.Check(err)
	n := bytes.Count(data, []byte(args[1]))
	if n == 0 {
		ts.Fatalf("replace: %q not found in %s", args[1], args[0])
	}
	info, err := os.Stat(file)
	ts.Check(err)
	ts.Check(os.WriteFile(file, bytes.ReplaceAll(data, []byte(args[1]), []byte(args[2])), info.Mode().Perm()))
	ts.Logf("replaced %d occurrence(s) in %s", n, args[0])
}

// scriptCmdUncomment replaces a capabilities file init wrote with its example,
// uncommented, as a person starting out would.
func scriptCmdUncomment(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: uncomment FILE")
	}
	file := ts.MkAbs(args[0])
	data, err := os.ReadFile(file)
	ts.Check(err)
	example := starter.Example(string(data))
	if example == "" {
		ts.Fatalf("uncomment: %s holds no example", args[0])
	}
	ts.Check(os.WriteFile(file, []byte(example), 0o644))
}

func scriptCmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: json FILE [SEG...] (== WANT | #= N | ?)"
	if len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	var segs []string
	var op, want string
	switch {
	case args[len(args)-1] == "?":
		segs, op = args[1:len(args)-1], "?"
	case len(args) >= 3 && (args[len(args)-2] == "==" || args[len(args)-2] == "#="):
		segs, op, want = args[1:len(args)-2], args[len(args)-2], args[len(args)-1]
	default:
		ts.Fatalf("%s", usage)
	}
	text := ts.ReadFile(args[0])
	var doc any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		ts.Fatalf("json: %s is not JSON: %v", args[0], err)
	}
	if dec.More() {
		ts.Fatalf("json: %s holds more than one JSON value", args[0])
	}
	where := args[0]
	val, found := doc, true
	for _, seg := range segs {
		where += " " + seg
		val, found = scriptJSONStep(val, seg)
		if !found {
			break
		}
	}
	var ok bool
	var got string
	switch op {
	case "?":
		ok, got = found, fmt.Sprint(found)
	case "#=":
		n, err := strconv.Atoi(want)
		if err != nil {
			ts.Fatalf("json: #= needs a number, not %q", want)
		}
		l := -1
		switch v := val.(type) {
		case []any:
			l = len(v)
		case map[string]any:
			l = len(v)
		case string:
			l = len(v)
		}
		if found && l < 0 {
			ts.Fatalf("json: %s has no length: %v", where, val)
		}
		ok, got = found && l == n, strconv.Itoa(l)
	case "==":
		var w any
		d := json.NewDecoder(strings.NewReader(want))
		d.UseNumber()
		if err := d.Decode(&w); err != nil || d.More() {
			w = want // a bare word stands for a JSON string
		}
		ok = found && reflect.DeepEqual(scriptJSONNormalize(val), scriptJSONNormalize(w))
		b, _ := json.Marshal(val)
		got = string(b)
	}
	if !found {
		got = "(missing)"
	}
	switch {
	case neg && ok:
		ts.Fatalf("json: %s %s %s holds, but should not (got %s)", where, op, want, got)
	case !neg && !ok:
		ts.Fatalf("json: %s %s %s does not hold (got %s)", where, op, want, got)
	}
}

// scriptJSONStep walks one segment into a decoded JSON value.
func scriptJSONStep(v any, seg string) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		x, ok := v[seg]
		return x, ok
	case []any:
		if i, err := strconv.Atoi(seg); err == nil {
			if i < 0 || i >= len(v) {
				return nil, false
			}
			return v[i], true
		}
		key, value, ok := strings.Cut(seg, "=")
		if !ok {
			return nil, false
		}
		for _, el := range v {
			if m, ok := el.(map[string]any); ok {
				if s, ok := m[key].(string); ok && s == value {
					return el, true
				}
			}
		}
	}
	return nil, false
}

// scriptJSONNormalize makes numbers comparable whatever their spelling (1 and 1.0).
func scriptJSONNormalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return v.String()
		}
		return f
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = scriptJSONNormalize(v[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k := range v {
			out[k] = scriptJSONNormalize(v[k])
		}
		return out
	}
	return v
}

// scriptCmdAbsent fails when TEXT is in a file at or under one of the paths, or
// in the last command's stdout or stderr.
func scriptCmdAbsent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || args[0] == "" {
		ts.Fatalf("usage: absent TEXT PATH...")
	}
	for _, p := range args[1:] {
		if p == "stdout" || p == "stderr" {
			if strings.Contains(ts.ReadFile(p), args[0]) {
				ts.Fatalf("%s holds %q", p, args[0])
			}
			continue
		}
		err := filepath.WalkDir(ts.MkAbs(p), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(path)
			if err == nil && bytes.Contains(data, []byte(args[0])) {
				return fmt.Errorf("%s holds %q", path, args[0])
			}
			return err
		})
		ts.Check(err)
	}
}
