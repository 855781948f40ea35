package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit"
)

// stdioPeer speaks JSON-RPC to a skillsync serve it started, one message a
// line, as an MCP client over stdio does.
type stdioPeer struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan map[string]any
	nextID int
	logs   *syncbuffer.Buffer
}

func startServe(t *testing.T, ws string, args ...string) *stdioPeer {
	t.Helper()
	cmd := exec.Command(testkit.Binary(t), append([]string{"--workspace", ws, "serve"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuffer.Buffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &stdioPeer{t: t, in: in, lines: make(chan map[string]any, 64), logs: logs}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var msg map[string]any
			if json.Unmarshal(sc.Bytes(), &msg) == nil {
				p.lines <- msg
			}
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	init := p.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	caps, _ := init["result"].(map[string]any)["capabilities"].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	if skills, _ := ext["io.modelcontextprotocol/skills"].(map[string]any); skills["directoryRead"] != true || caps["resources"] == nil {
		t.Fatalf("the server declares no skills extension with directoryRead, or no resources: %v", init)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return p
}

func (p *stdioPeer) send(msg map[string]any) {
	p.t.Helper()
	data, _ := json.Marshal(msg)
	if _, err := p.in.Write(append(data, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// call sends a request and returns its response; notifications that come
// first are kept for next.
func (p *stdioPeer) call(method string, params any) map[string]any {
	p.t.Helper()
	p.nextID++
	id := p.nextID
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for msg := range p.waitFor(func(m map[string]any) bool { return m["id"] == float64(id) }) {
		return msg
	}
	p.t.Fatalf("no answer to %s", method)
	return nil
}

// waitFor yields the first message match takes, within a minute.
func (p *stdioPeer) waitFor(match func(map[string]any) bool) func(func(map[string]any) bool) {
	return func(yield func(map[string]any) bool) {
		deadline := time.After(time.Minute)
		for {
			select {
			case msg, ok := <-p.lines:
				if !ok {
					return
				}
				if _, answer := msg["result"]; answer && msg["id"] == nil {
					p.t.Errorf("an answer to no request: %v", msg)
				}
				if match(msg) {
					yield(msg)
					return
				}
			case <-deadline:
				return
			}
		}
	}
}

// The MUSTs of the skills extension, against the real binary over stdio: every
// listed skill has a SKILL.md URI, its front matter, and a manifest whose
// digests and sizes are those of what resources/read returns; skills/get
// returns the listed entry and refuses an unknown URI with an error; each file
// is a resource; a change of the registry is announced as a change of the
// resource list, and the listing then has the new content; nothing is written
// into the workspace.
func TestServeConformsToTheSkillsExtension(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	before := treeOf(t, ws)
	p := startServe(t, ws, "--target", "claude-code")
	list := p.call("skills/list", map[string]any{})
	result, _ := list["result"].(map[string]any)
	skills, _ := result["skills"].([]any)
	if len(skills) != 5 || result["resultType"] != "complete" || result["ttlMs"] == nil || result["cacheScope"] == nil {
		t.Fatalf("skills/list: %v", list)
	}
	named := map[string]string{}
	resources := p.call("resources/list", map[string]any{})
	listed, _ := resources["result"].(map[string]any)["resources"].([]any)
	for _, raw := range listed {
		r := raw.(map[string]any)
		named[r["uri"].(string)] = fmt.Sprint(r["name"], " ", r["mimeType"])
	}
	for _, raw := range skills {
		entry := raw.(map[string]any)
		uri, _ := entry["uri"].(string)
		name := strings.TrimSuffix(strings.TrimPrefix(uri, "skill://"), "/SKILL.md")
		front, _ := entry["frontmatter"].(map[string]any)
		if !strings.HasSuffix(uri, "/SKILL.md") || front["name"] != name || front["description"] == "" {
			t.Errorf("entry %v: want skill://NAME/SKILL.md with its name and description", entry)
		}
		files, _ := entry["resources"].([]any)
		if len(files) == 0 {
			t.Errorf("%s: no manifest", uri)
		}
		for _, f := range files {
			file := f.(map[string]any)
			content := p.read(file["uri"].(string))
			sum := sha256.Sum256(content)
			if file["digest"] != "sha256:"+hex.EncodeToString(sum[:]) || file["size"] != float64(len(content)) {
				t.Errorf("%s: manifest says %v %v, resources/read gives %d bytes of sha256:%x", file["uri"], file["digest"], file["size"], len(content), sum)
			}
		}
		got := p.call("skills/get", map[string]any{"uri": uri})
		get, _ := got["result"].(map[string]any)
		if skill, _ := get["skill"].(map[string]any); skill["uri"] != uri || get["resultType"] != "complete" || get["ttlMs"] == nil || get["cacheScope"] == nil {
			t.Errorf("skills/get %s: %v", uri, got)
		}
		if want := name + " text/markdown"; named[uri] != want {
			t.Errorf("resources/list names %s %q, want %q", uri, named[uri], want)
		}
	}
	// A notification is never answered, the extension's methods' included.
	p.send(map[string]any{"jsonrpc": "2.0", "method": "skills/list"})
	p.call("ping", map[string]any{})
	for method, params := range map[string]map[string]any{"skills/get": {"uri": "skill://nothing/SKILL.md"}, "resources/read": {"uri": "skill://nothing/SKILL.md"}} {
		missing := p.call(method, params)
		if e, _ := missing["error"].(map[string]any); e["code"] != float64(-32602) {
			t.Errorf("%s of an unknown skill: %v; want error -32602 (invalid params)", method, missing)
		}
	}
	// A URI with a control character or an invisible code point is not found
	// either, named in valid JSON, and the server goes on answering.
	for _, uri := range []string{"skill://weekly-report/SKILL.md\x00", "skill://nothing/\a", "skill://nothing/\U000E0041"} {
		for _, method := range []string{"resources/read", "skills/get"} {
			missing := p.call(method, map[string]any{"uri": uri})
			e, _ := missing["error"].(map[string]any)
			if data, _ := e["data"].(map[string]any); e["code"] != float64(-32602) || method == "resources/read" && data["uri"] != uri {
				t.Errorf("%s of %q: %v; want error -32602 (invalid params) naming it", method, uri, missing)
			}
		}
		p.call("ping", map[string]any{})
	}
	if got := string(p.read("skill://weekly-report/SKILL.md")); !strings.Contains(got, "Weekly report for a team") {
		t.Fatalf("weekly-report's SKILL.md:\n%s", got)
	}

	replaceInFile(t, filepath.Join(ws, "registry/journal.yaml"), "title: Weekly report for a team", "title: Weekly report, served")
	changed := false
	for range p.waitFor(func(m map[string]any) bool { return m["method"] == "notifications/resources/list_changed" }) {
		changed = true
	}
	if !changed {
		t.Fatal("no notifications/resources/list_changed after the registry changed")
	}
	if got := string(p.read("skill://weekly-report/SKILL.md")); !strings.Contains(got, "Weekly report, served") {
		t.Errorf("after the change, weekly-report's SKILL.md:\n%s", got)
	}
	// Nothing changed in the workspace but the file the test edited.
	for _, d := range treeDiff(before, treeOf(t, ws)) {
		if d != "content: registry/journal.yaml" && !strings.HasSuffix(d, ": registry/journal.yaml") {
			t.Errorf("serve changed the workspace: %s", d)
		}
	}
}

// read returns the bytes resources/read gives for uri.
func (p *stdioPeer) read(uri string) []byte {
	p.t.Helper()
	got := p.call("resources/read", map[string]any{"uri": uri})
	contents, _ := got["result"].(map[string]any)["contents"].([]any)
	if len(contents) != 1 {
		p.t.Fatalf("resources/read %s: %v", uri, got)
	}
	c := contents[0].(map[string]any)
	if blob, ok := c["blob"].(string); ok {
		data, err := base64.StdEncoding.DecodeString(blob)
		if err != nil {
			p.t.Fatal(err)
		}
		return data
	}
	return []byte(fmt.Sprint(c["text"]))
}

func replaceInFile(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), old) {
		t.Fatalf("%s holds no %q: %v", file, old, err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serve --well-known serves the site publish --well-known writes, byte for
// byte, and another workspace's index source takes the skills from it: the
// same skill directories land on its disk. A skill added to the first
// workspace is in the index the next time it is asked for.
func TestServeWellKnownIsASiteAnIndexSourceReads(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	a := t.TempDir()
	testkit.WriteFiles(t, a, map[string]string{
		"skillsync.yaml":                  "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  skillDirs: [skills/*]\n  targets: [claude-code]\n",
		"skills/deploy/SKILL.md":          "---\nname: deploy\ndescription: Deploy the service.\n---\nRead [the FAQ](references/faq.md).\n",
		"skills/deploy/references/faq.md": "Questions.\n",
		"skills/greet/SKILL.md":           "---\nname: greet\ndescription: Greet someone.\n---\nSay hello.\n",
	})
	site := filepath.Join(t.TempDir(), "public")
	if code, out, stderr := runCLI(t, a, "publish", "--well-known", site); code != exitOK {
		t.Fatalf("publish: exit %d\n%s%s", code, out, stderr)
	}
	addr := testkit.FreeAddr(t)
	cmd := exec.Command(testkit.Binary(t), "--workspace", a, "serve", "--http", addr, "--well-known")
	var logs strings.Builder
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	index := "http://" + addr + "/.well-known/agent-skills/index.json"
	testkit.AwaitReady(t, index, time.Minute, nil)
	served := 0
	for rel, e := range treeOf(t, site) {
		if e.Kind != "file" {
			continue
		}
		sum := sha256.Sum256([]byte(httpGet(t, "http://"+addr+"/"+filepath.ToSlash(rel))))
		if got := hex.EncodeToString(sum[:]); got != e.Digest {
			t.Errorf("%s: served sha256:%s, publish wrote sha256:%s", rel, got, e.Digest)
		}
		served++
	}
	if served != 3 {
		t.Errorf("publish wrote %d files; want the index and 2 artifacts", served)
	}

	b := t.TempDir()
	testkit.WriteFile(t, b, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  targets: [claude-code]\n"+
		"  sources:\n    - name: team\n      index: "+index+"\n"))
	for _, c := range []struct {
		ws   string
		args []string
	}{{a, []string{"reconcile", "--once"}}, {b, []string{"update", "--yes"}}, {b, []string{"reconcile", "--once"}}} {
		if code, out, stderr := runCLI(t, c.ws, c.args...); code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", c.args, code, out, stderr)
		}
	}
	sameContents(t, a, b, ".claude/skills", "source team (index "+index+", ")

	testkit.WriteFile(t, a, "skills/wave/SKILL.md", []byte("---\nname: wave\ndescription: Wave.\n---\nWave.\n"))
	for deadline := time.Now().Add(time.Minute); !strings.Contains(httpGet(t, index), `"wave"`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the index never named the skill added:\n%s\n%s", httpGet(t, index), logs.String())
		}
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// startServeHTTP runs skillsync serve over HTTP on a free loopback port with
// args, and returns its base URL once the site or the MCP endpoint answers.
func startServeHTTP(t *testing.T, ws string, env []string, args ...string) string {
	t.Helper()
	addr := testkit.FreeAddr(t)
	cmd := exec.Command(testkit.Binary(t), append([]string{"--workspace", ws, "serve", "--http", addr}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/mcp"); err == nil {
			resp.Body.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatal("serve never answered")
		}
	}
}

// status sends a request and returns its status code.
func status(t *testing.T, method, url, host, auth, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// On loopback, serve answers only requests that name localhost, so a web page
// an attacker's name leads to 127.0.0.1 (DNS rebinding) reads nothing: not the
// extension's methods, which are answered before the SDK's own check, nor the
// site. Behind a token, a request without it gets 401, and the scheme is
// matched in any case.
func TestServeOverHTTPAnswersOnlyLocalhostAndTheToken(t *testing.T) {
	ws := t.TempDir()
	testkit.WriteFiles(t, ws, map[string]string{
		"skillsync.yaml":       "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  skillDirs: [skills/*]\n  targets: [claude-code]\n",
		"skills/tidy/SKILL.md": "---\nname: tidy\ndescription: Tidy up.\n---\nTidy.\n",
	})
	list := `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`
	base := startServeHTTP(t, ws, nil, "--well-known")
	index := base + "/.well-known/agent-skills/index.json"
	for _, c := range []struct {
		method, url, host, body string
		want                    int
	}{
		{"POST", base + "/mcp", "", list, http.StatusOK},
		{"POST", base + "/mcp", "evil.example", list, http.StatusForbidden},
		{"GET", index, "", "", http.StatusOK},
		{"GET", index, "evil.example:80", "", http.StatusForbidden},
		{"GET", index, "localhost", "", http.StatusOK},
	} {
		if got := status(t, c.method, c.url, c.host, "", c.body); got != c.want {
			t.Errorf("%s %s as %q: %d, want %d", c.method, c.url, c.host, got, c.want)
		}
	}

	guarded := startServeHTTP(t, ws, []string{"SERVE_TOKEN=s3cret"}, "--well-known", "--token", "${SERVE_TOKEN}")
	for auth, want := range map[string]int{"": http.StatusUnauthorized, "Bearer wrong": http.StatusUnauthorized,
		"Bearer s3cret": http.StatusOK, "bearer s3cret": http.StatusOK} {
		if got := status(t, "GET", guarded+"/.well-known/agent-skills/index.json", "", auth, ""); got != want {
			t.Errorf("Authorization %q: %d, want %d", auth, got, want)
		}
	}
}

// serve refuses to listen beyond loopback without a token, a token given
// itself rather than as ${VAR}, and --well-known without --http (exit 2); an
// address already taken is a failure it says (exit 4), not a quiet exit 0.
func TestServeRefusesWhatItCannotServe(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--http", "0.0.0.0:0"}, exitInvalid, "listens beyond this machine"},
		{[]string{"--http", "0.0.0.0:0", "--token", "s3cret"}, exitInvalid, "never the token itself"},
		{[]string{"--well-known"}, exitInvalid, "give --http ADDR too"},
		{[]string{"--target", "cursor"}, exitInvalid, "enables no target"},
		{[]string{"--http", taken.Addr().String()}, exitFailure, "address already in use"},
	} {
		code, _, stderr := runCLI(t, ws, append([]string{"serve"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.says) || strings.Contains(stderr, "s3cret") {
			t.Errorf("serve %v: exit %d, stderr %q; want %d saying %q", c.args, code, stderr, c.code, c.says)
		}
	}
}

// A registry file cut off mid-save is invalid input to serve as to a run:
// the skills served before stay served, rather than the ones the file's lost
// half declared disappearing from every connected client.
func TestServeKeepsItsSkillsWhileAFileIsCutOff(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	if code, _, stderr := runCLI(t, ws, "reconcile", "--once"); code != exitOK {
		t.Fatalf("reconcile: exit %d\n%s", code, stderr)
	}
	p := startServe(t, ws, "--target", "claude-code")
	file := filepath.Join(ws, "registry/journal.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if err := os.WriteFile(file, []byte(first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); !strings.Contains(p.logs.String(), "cut off"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve never said the file is cut off:\n%s", p.logs.String())
		}
	}
	list := p.call("skills/list", map[string]any{})
	if skills, _ := list["result"].(map[string]any)["skills"].([]any); len(skills) != 5 {
		t.Errorf("with a file cut off, serve lists %d skills, want the 5 it served", len(skills))
	}
}

// serve declares directoryRead and answers resources/directory/read for every
// directory of a skill it serves: the direct children, files with their
// metadata and folders as inode/directory, a file named as it is, not as its
// URI escapes it; a file, or a directory it does not serve, is error -32602.
func TestServeReadsASkillsDirectories(t *testing.T) {
	ws := t.TempDir()
	testkit.WriteFiles(t, ws, map[string]string{
		"skillsync.yaml":                  "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  skillDirs: [skills/*]\n  targets: [claude-code]\n",
		"skills/tidy/SKILL.md":            "---\nname: tidy\ndescription: Tidy up.\n---\nSee the notes.\n",
		"skills/tidy/50% off.md":          "Half.\n",
		"skills/tidy/notes/first.md":      "One.\n",
		"skills/tidy/notes/deep/third.md": "Three.\n",
	})
	p := startServe(t, ws)
	children := func(uri string) []string {
		t.Helper()
		got := p.call("resources/directory/read", map[string]any{"uri": uri})
		result, _ := got["result"].(map[string]any)
		if result["resultType"] != "complete" {
			t.Fatalf("resources/directory/read %s: %v", uri, got)
		}
		var out []string
		for _, raw := range result["resources"].([]any) {
			r := raw.(map[string]any)
			out = append(out, fmt.Sprint(r["name"], " ", r["uri"], " ", r["mimeType"]))
		}
		return out
	}
	if got, want := children("skill://tidy"), []string{
		"50% off.md skill://tidy/50%25%20off.md text/markdown",
		"SKILL.md skill://tidy/SKILL.md text/markdown",
		"notes skill://tidy/notes inode/directory",
	}; !slices.Equal(got, want) {
		t.Errorf("skill://tidy holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := children("skill://tidy/notes"), []string{"deep skill://tidy/notes/deep inode/directory", "first.md skill://tidy/notes/first.md text/markdown"}; !slices.Equal(got, want) {
		t.Errorf("skill://tidy/notes holds %v, want %v", got, want)
	}
	for _, uri := range []string{"skill://tidy/SKILL.md", "skill://nothing", "skill://tidy/"} {
		got := p.call("resources/directory/read", map[string]any{"uri": uri})
		if e, _ := got["error"].(map[string]any); e["code"] != float64(-32602) {
			t.Errorf("resources/directory/read %s: %v; want error -32602", uri, got)
		}
	}
}
