package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skillsync/skillsync/internal/testkit/benchkit"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

func main() {
	n := flag.Int("n", 1000, "capabilities in the workspace, each a skill")
	calls := flag.Int("calls", 200, "skills/list and ping calls, alternating, after 20 untimed")
	saves := flag.Int("saves", 15, "registry saves")
	flag.Parse()

	tmp := benchkit.ScratchDir("skillsync-servebench-")
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "skillsync")
	benchkit.Check(benchkit.BuildAsReleased(bin))
	ws := filepath.Join(tmp, "ws")
	benchkit.Check(workspacegen.Write(ws, *n, nil, nil))

	cmd := exec.Command(bin, "--workspace", ws, "serve", "--target", "claude-code")
	in := benchkit.Must(cmd.StdinPipe())
	out := benchkit.Must(cmd.StdoutPipe())
	benchkit.Check(cmd.Start())
	defer func() {
		in.Close()
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	c := &client{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
	c.notify("notifications/initialized")

	var list, ping []time.Duration
	var skills int
	for i := -20; i < *calls; i++ {
		start := time.Now()
		answer := c.call("skills/list", map[string]any{})
		took := time.Since(start)
		start = time.Now()
		c.call("ping", map[string]any{})
		if i >= 0 {
			list, ping = append(list, took), append(ping, time.Since(start))
		}
		var page struct {
			Result struct{ Skills []json.RawMessage } `json:"result"`
		}
		benchkit.Check(json.Unmarshal(answer, &page))
		skills = len(page.Result.Skills)
	}

	var notified []time.Duration
	file := filepath.Join(ws, workspacegen.File(0))
	_, _, title := workspacegen.Capability(0)
	for i := 1; i <= *saves; i++ {
		retitled := fmt.Sprintf("Retitled %d", i)
		data := benchkit.Must(os.ReadFile(file))
		data = []byte(strings.Replace(string(data), title, retitled, 1))
		title = retitled
		start := time.Now()
		save(file, data)
		c.awaitNotification("notifications/resources/list_changed")
		notified = append(notified, time.Since(start))
		time.Sleep(300 * time.Millisecond) // past the quiet period, so each save is a change of its own
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "over stdio\tp50\tp90\tmax\tp50 / ping p50\ttarget\t")
	base := benchkit.Percentile(ping, 50)
	for _, r := range []struct {
		name, target string
		times        []time.Duration
	}{
		{"ping (the floor)", "", ping},
		{fmt.Sprintf("skills/list of %d skills", skills), "≤ 5 ms", list},
		{"registry save → list_changed", "≤ 200 ms", notified},
	} {
		p50 := benchkit.Percentile(r.times, 50)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f×\t%s\t\n", r.name, benchkit.Ms(p50), benchkit.Ms(benchkit.Percentile(r.times, 90)),
			benchkit.Ms(benchkit.Percentile(r.times, 100)), float64(p50)/float64(base), r.target)
	}
	tw.Flush()
	fmt.Printf("N = %d capabilities (%d per registry file); %d skills/list and ping calls alternating after 20 untimed; %d saves of one registry file, each timed from the save to the notification.\n",
		*n, workspacegen.PerFile, *calls, *saves)
}

// save writes data to file as an editor does: whole, under another name,
// renamed into place.
func save(file string, data []byte) {
	benchkit.Check(os.WriteFile(file+".swp", data, 0o644))
	benchkit.Check(os.Rename(file+".swp", file))
}

// client is an MCP client over stdio, JSON-RPC a line each way.
type client struct {
	in   io.Writer
	out  *bufio.Reader
	next int
}

func (c *client) notify(method string) {
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	benchkit.Must(c.in.Write(append(data, '\n')))
}

// call returns the raw answer to a request, passing over notifications.
func (c *client) call(method string, params any) []byte {
	c.next++
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	benchkit.Must(c.in.Write(append(data, '\n')))
	for {
		line := benchkit.Must(c.out.ReadBytes('\n'))
		var msg struct {
			ID any `json:"id"`
		}
		benchkit.Check(json.Unmarshal(line, &msg))
		if msg.ID == float64(c.next) {
			return line
		}
	}
}

// awaitNotification reads until the notification method arrives.
func (c *client) awaitNotification(method string) {
	for {
		line := benchkit.Must(c.out.ReadBytes('\n'))
		var msg struct {
			Method string `json:"method"`
		}
		benchkit.Check(json.Unmarshal(line, &msg))
		if msg.Method == method {
			return
		}
	}
}
