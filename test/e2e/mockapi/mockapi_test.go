package mockapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

func TestAnswersAndRecords(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	var msg struct {
		Content []struct{ Text string }
	}
	json.Unmarshal([]byte(post(t, s.URL+"/v1/messages", `{"model":"m","messages":[]}`)), &msg)
	if len(msg.Content) != 1 || msg.Content[0].Text != Reply {
		t.Errorf("anthropic plain reply = %+v", msg)
	}
	stream := post(t, s.URL+"/v1/messages", `{"stream":true}`)
	var events []string
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		if e, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, e)
		}
	}
	if strings.Join(events, ",") != "message_start,content_block_start,content_block_delta,content_block_stop,message_delta,message_stop" || !strings.Contains(stream, Reply) {
		t.Errorf("anthropic stream:\n%s", stream)
	}

	var chat struct {
		Choices []struct{ Message struct{ Content string } }
	}
	json.Unmarshal([]byte(post(t, s.URL+"/v1/chat/completions", `{"messages":[]}`)), &chat)
	if len(chat.Choices) != 1 || chat.Choices[0].Message.Content != Reply {
		t.Errorf("openai plain reply = %+v", chat)
	}
	if got := post(t, s.URL+"/v1/chat/completions", `{"stream":true}`); !strings.Contains(got, Reply) || !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Errorf("openai stream:\n%s", got)
	}
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("models: %v %v", resp, err)
	}
	resp.Body.Close()

	reqs := s.Requests()
	if len(reqs) != 5 || reqs[0].Path != "/v1/messages" || string(reqs[0].Body) != `{"model":"m","messages":[]}` || reqs[4].Method != "GET" {
		t.Errorf("recorded %+v", reqs)
	}
	s.Reset()
	if len(s.Requests()) != 0 {
		t.Error("Reset kept requests")
	}
}

// With a skill to load, the first request that offers the tool gets the call, in
// each protocol that has one; a request carrying its result gets text again.
func TestLoadSkillCallsTheToolOnce(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.LoadSkill(&SkillCall{Tool: "skill", Args: map[string]any{"skill": "intent"}})

	offers := `{"tools":[{"type":"function","function":{"name":"skill"}}],"messages":[]}`
	var chat struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	json.Unmarshal([]byte(post(t, s.URL+"/v1/chat/completions", offers)), &chat)
	if len(chat.Choices) != 1 || len(chat.Choices[0].Message.ToolCalls) != 1 || chat.Choices[0].FinishReason != "tool_calls" ||
		chat.Choices[0].Message.ToolCalls[0].Function.Name != "skill" || chat.Choices[0].Message.ToolCalls[0].Function.Arguments != `{"skill":"intent"}` {
		t.Errorf("chat tool call = %+v", chat)
	}
	if got := post(t, s.URL+"/v1/chat/completions", `{"stream":true,"tools":[{"function":{"name":"skill"}}]}`); !strings.Contains(got, `"tool_calls"`) || strings.Contains(got, Reply) {
		t.Errorf("chat stream tool call:\n%s", got)
	}
	answered := `{"tools":[{"function":{"name":"skill"}}],"messages":[{"role":"tool","tool_call_id":"` + CallID + `","content":"body"}]}`
	if got := post(t, s.URL+"/v1/chat/completions", answered); !strings.Contains(got, Reply) || strings.Contains(got, "tool_calls\":[") {
		t.Errorf("after the result, text expected:\n%s", got)
	}
	if got := post(t, s.URL+"/v1/chat/completions", `{"messages":[]}`); !strings.Contains(got, Reply) {
		t.Errorf("a request that does not offer the tool gets text:\n%s", got)
	}

	gemini := `{"tools":[{"functionDeclarations":[{"name":"skill"}]}],"contents":[]}`
	if got := post(t, s.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", gemini); !strings.HasPrefix(got, "data: ") || !strings.Contains(got, `"functionCall":{"args":{"skill":"intent"},"name":"skill"}`) {
		t.Errorf("gemini function call:\n%s", got)
	}
	if got := post(t, s.URL+"/v1beta/models/m:generateContent", `{"contents":[{"parts":[{"functionResponse":{"name":"skill"}}]}]}`); !strings.Contains(got, Reply) {
		t.Errorf("gemini after the result:\n%s", got)
	}
	if got := post(t, s.URL+"/v1/responses", `{"stream":true}`); !strings.Contains(got, "event: response.completed") || !strings.Contains(got, Reply) {
		t.Errorf("responses stream:\n%s", got)
	}
}

// FollowSkill calls the offered tool the user's last message names, with the
// property it names set to the text between the markers; told nothing else.
func TestFollowSkillCallsTheToolTheBodyNames(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.FollowSkill()

	tools := `[{"name":"Read","input_schema":{"properties":{"file_path":{}}}},` +
		`{"name":"mcp__files__read_text_file","input_schema":{"properties":{"path":{},"head":{}}}},` +
		`{"name":"mcp__files__write_file","input_schema":{"properties":{"path":{},"content":{}}}}]`
	body := "Base directory for this skill: /w\n\nUse the text as the `path` input field.\n\n<<<TEXT\nnotes/a b.txt\nTEXT>>>\n\n" +
		"Call the tool `read_text_file` of the MCP server `files` (in Claude Code: `mcp__files__read_text_file`) with `path` set to that text.\n"
	// request is a body as Claude Code sends it: the skill's body after the
	// command, its environment after the user's message, then any messages more.
	request := func(stream bool, tools, body string, more ...string) string {
		text, _ := json.Marshal(body)
		messages := append([]string{`{"role":"user","content":[{"type":"text","text":"<command-name>/read-file</command-name>"},{"type":"text","text":` + string(text) + `}]}`,
			`{"role":"system","content":"# Environment"}`}, more...)
		return fmt.Sprintf(`{"stream":%v,"tools":%s,"messages":[%s]}`, stream, tools, strings.Join(messages, ","))
	}

	var msg struct {
		Content []struct {
			Type, ID, Name string
			Input          map[string]any
		}
		StopReason string `json:"stop_reason"`
	}
	json.Unmarshal([]byte(post(t, s.URL+"/v1/messages", request(false, tools, body))), &msg)
	if len(msg.Content) != 1 || msg.Content[0].Type != "tool_use" || msg.Content[0].ID != CallID || msg.Content[0].Name != "mcp__files__read_text_file" ||
		len(msg.Content[0].Input) != 1 || msg.Content[0].Input["path"] != "notes/a b.txt" || msg.StopReason != "tool_use" {
		t.Errorf("anthropic tool use = %+v", msg)
	}
	if call := s.Requests()[0].Call; call == nil || call.Tool != "mcp__files__read_text_file" || call.Args["path"] != "notes/a b.txt" {
		t.Errorf("recorded call = %+v", call)
	}
	stream := post(t, s.URL+"/v1/messages", request(true, tools, body))
	for _, want := range []string{`"content_block":{"id":"` + CallID + `","input":{},"name":"mcp__files__read_text_file","type":"tool_use"}`,
		`"partial_json":"{\"path\":\"notes/a b.txt\"}"`, `"stop_reason":"tool_use"`} {
		if !strings.Contains(stream, want) {
			t.Errorf("anthropic stream lacks %s:\n%s", want, stream)
		}
	}
	answered := request(false, tools, body, `{"role":"assistant","content":[{"type":"tool_use","id":"`+CallID+`","name":"mcp__files__read_text_file","input":{}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+CallID+`","content":"text"}]}`)
	if got := post(t, s.URL+"/v1/messages", answered); !strings.Contains(got, Reply) || s.Requests()[2].Call != nil {
		t.Errorf("after the result, text expected:\n%s", got)
	}

	chatTools := `[{"type":"function","function":{"name":"mcp__files__read_text_file","parameters":{"properties":{"path":{}}}}}]`
	if got := post(t, s.URL+"/v1/chat/completions", request(false, chatTools, body)); !strings.Contains(got, `"arguments":"{\"path\":\"notes/a b.txt\"}"`) {
		t.Errorf("chat tool call:\n%s", got)
	}

	for name, b := range map[string]string{
		"no markers":                      strings.Replace(body, "<<<TEXT", "<<TEXT", 1),
		"no offered tool":                 strings.ReplaceAll(body, "mcp__files__read_text_file", "mcp__files__read_txt"),
		"no property":                     strings.ReplaceAll(body, "`path`", "`file`"),
		"a property of another tool only": strings.ReplaceAll(body, "`path`", "`file_path`"),
		"two tools":                       body + "Or `mcp__files__write_file`.\n",
		"two properties":                  body + "Set `head` too.\n",
	} {
		if got := post(t, s.URL+"/v1/messages", request(false, tools, b)); !strings.Contains(got, Reply) {
			t.Errorf("%s: text expected, not a guess:\n%s", name, got)
		}
	}
}

// A Responses request whose last user message names a skill's SKILL.md in a
// <path> tag, as Codex sends it, is answered with a function call to run the
// skill's script there; one naming nothing, and the call's own result, with text.
func TestRunFromSkillDirOverResponses(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.RunFromSkillDir("exec_command", "cmd", "scripts/hello.sh")
	tools := `"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}}]`
	skill := `{"role":"user","content":[{"type":"input_text","text":"<skill>\n<name>hello</name>\n<path>/w/.agents/skills/hello/SKILL.md</path>\nbody</skill>"}]}`
	out := post(t, s.URL+"/v1/responses", `{"model":"m","stream":true,`+tools+`,"input":[{"role":"user","content":[{"type":"input_text","text":"$hello"}]},`+skill+`]}`)
	if !strings.Contains(out, `"type":"function_call"`) || !strings.Contains(out, `\"cmd\":\"/w/.agents/skills/hello/scripts/hello.sh\"`) {
		t.Errorf("no call to run the skill's script:\n%s", out)
	}
	for _, body := range []string{
		`{"model":"m","stream":true,` + tools + `,"input":[{"role":"user","content":[{"type":"input_text","text":"hello"}]}]}`,
		`{"model":"m","stream":true,` + tools + `,"input":[` + skill + `,{"type":"function_call_output","call_id":"` + CallID + `","output":"ran"}]}`,
	} {
		if out := post(t, s.URL+"/v1/responses", body); strings.Contains(out, "function_call") || !strings.Contains(out, Reply) {
			t.Errorf("want text for %s, got:\n%s", body, out)
		}
	}
}
