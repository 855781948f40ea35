package mockapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"strings"
	"sync"
)

// Reply is the text every completion answers with.
const Reply = "ok from the mock"

// Request is one recorded HTTP request, and the call the mock answered it with.
type Request struct {
	Method string
	Path   string
	Body   []byte
	Call   *SkillCall
}

// Server is a running mock.
type Server struct {
	URL      string // http://127.0.0.1:PORT
	srv      *http.Server
	mu       sync.Mutex
	requests []Request
	// caller picks the call to answer a request with; nil answers text.
	caller func(turn) *SkillCall
}

// SkillCall is a tool call the mock's model makes for a skill: the call of a
// client's skill-loading tool, or the call a loaded skill's body asks for; the
// tool, and the arguments it is called with.
type SkillCall struct {
	Tool string
	Args map[string]any
}

// LoadSkill makes the mock answer a request that offers call.Tool, and holds no
// result of a call yet, with that call instead of text; nil stops it. Clients
// that load a skill only when their model asks are driven this way.
func (s *Server) LoadSkill(call *SkillCall) {
	var caller func(turn) *SkillCall
	if call != nil {
		caller = func(t turn) *SkillCall {
			if _, ok := t.tools[call.Tool]; ok {
				return call
			}
			return nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caller = caller
}

// FollowSkill makes the mock's model do what a skill body in the user's last
// message of a request asks, reading it as a model would and told nothing by the test: the
// text between a line <<<TEXT and a line TEXT>>> (how skillsync shows the typed
// text) goes, as the only argument, into the one input property of the one
// offered tool that the message names in backticks. A message that names no
// offered tool or property, or more than one, gets text, so a body that points
// nowhere, or at two places, is not rescued by a guess. LoadSkill stops it.
func (s *Server) FollowSkill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caller = followSkill
}

// SkillDirLine is how Claude Code, Qwen Code and OpenCode tell the model where a
// loaded skill's files are, on a line beside its body; SkillPathTag is how Codex
// does, naming the skill's SKILL.md in a tag before it.
const (
	SkillDirLine = "Base directory for this skill: "
	SkillPathTag = "<path>"
)

// RunFromSkillDir makes the mock's model, told by a loaded skill where the
// skill's files are (SkillDirLine or SkillPathTag), call tool with its input
// property prop set to the file rel there: what a model does with a body that
// says to run the skill's script. A message that names no directory gets text.
// LoadSkill stops it.
func (s *Server) RunFromSkillDir(tool, prop, rel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caller = func(t turn) *SkillCall {
		dir, ok := skillDir(t.last)
		if _, offered := t.tools[tool]; !ok || !offered {
			return nil
		}
		return &SkillCall{Tool: tool, Args: map[string]any{prop: path.Join(dir, rel)}}
	}
}

// skillDir is the directory a loaded skill's message says its files are in.
func skillDir(message string) (string, bool) {
	if _, rest, ok := strings.Cut(message, SkillDirLine); ok {
		dir, _, _ := strings.Cut(rest, "\n")
		return strings.TrimSpace(dir), true
	}
	if _, rest, ok := strings.Cut(message, SkillPathTag); ok {
		file, _, closed := strings.Cut(rest, "</path>")
		if closed && path.Base(file) == "SKILL.md" {
			return path.Dir(file), true
		}
	}
	return "", false
}

const (
	textBegin = "\n<<<TEXT\n"
	textEnd   = "\nTEXT>>>\n"
)

func followSkill(t turn) *SkillCall {
	_, rest, ok := strings.Cut("\n"+t.last+"\n", textBegin)
	if !ok {
		return nil
	}
	typed, _, ok := strings.Cut(rest, textEnd)
	if !ok {
		return nil
	}
	named := func(name string) bool { return strings.Contains(t.last, "`"+name+"`") }
	var call *SkillCall
	for tool, props := range t.tools {
		if !named(tool) {
			continue
		}
		for _, p := range props {
			if !named(p) {
				continue
			}
			if call != nil {
				return nil
			}
			call = &SkillCall{Tool: tool, Args: map[string]any{p: typed}}
		}
	}
	return call
}

// CallID is the id of the call the mock makes, by which the request that
// carries its result is recognised, by the mock and by a test.
const CallID = "call_mock_skill"

// turn is what the mock's model reads of a request: the tools offered, each with
// the names of its input properties, and the text of the user's last message.
type turn struct {
	tools map[string][]string
	last  string
}

// readTurn reads an Anthropic Messages, Chat Completions, Responses or Gemini
// request body.
func readTurn(body []byte) turn {
	type schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var req struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema schema `json:"input_schema"`
			Parameters  schema `json:"parameters"`
			Function    struct {
				Name       string `json:"name"`
				Parameters schema `json:"parameters"`
			} `json:"function"`
			FunctionDeclarations []struct {
				Name       string `json:"name"`
				Parameters schema `json:"parameters"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Input []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	json.Unmarshal(body, &req)
	t := turn{tools: map[string][]string{}}
	add := func(name string, schemas ...schema) {
		if name == "" {
			return
		}
		props := t.tools[name]
		for _, sc := range schemas {
			for p := range sc.Properties {
				props = append(props, p)
			}
		}
		t.tools[name] = props
	}
	for _, tool := range req.Tools {
		add(tool.Name, tool.InputSchema, tool.Parameters)
		add(tool.Function.Name, tool.Function.Parameters)
		for _, f := range tool.FunctionDeclarations {
			add(f.Name, f.Parameters)
		}
	}
	// The user's last message: Claude Code sends its environment after it, as a
	// system message.
	var texts []string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			texts = ContentTexts(req.Messages[i].Content)
			break
		}
	}
	for i := len(req.Input) - 1; i >= 0 && texts == nil; i-- {
		if req.Input[i].Role == "user" {
			texts = ContentTexts(req.Input[i].Content)
		}
	}
	for i := len(req.Contents) - 1; i >= 0; i-- {
		if req.Contents[i].Role == "user" {
			for _, p := range req.Contents[i].Parts {
				texts = append(texts, p.Text)
			}
			break
		}
	}
	t.last = strings.Join(texts, "\n")
	return t
}

// ContentTexts reads a message's content: a string, or a list of blocks.
func ContentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var out []string
	for _, b := range blocks {
		if b.Text != "" {
			out = append(out, b.Text)
		}
	}
	return out
}

// skillCall is the call to answer r, whose body is body, with, if any; it is
// recorded with the request.
func (s *Server) skillCall(r *http.Request, body []byte) *SkillCall {
	s.mu.Lock()
	caller := s.caller
	s.mu.Unlock()
	if caller == nil || bytes.Contains(body, []byte(CallID)) || bytes.Contains(body, []byte(`"functionResponse"`)) {
		return nil
	}
	call := caller(readTurn(body))
	if i, ok := r.Context().Value(requestIndex{}).(int); ok && call != nil {
		s.mu.Lock()
		if i < len(s.requests) {
			s.requests[i].Call = call
		}
		s.mu.Unlock()
	}
	return call
}

// requestIndex keys a request's place in Server.requests in its context.
type requestIndex struct{}

// Start listens on a random loopback port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.anthropicMessages)
	mux.HandleFunc("POST /v1/chat/completions", s.openAIChat)
	mux.HandleFunc("GET /v1/models", s.openAIModels)
	mux.HandleFunc("POST /v1/responses", s.openAIResponses)
	mux.HandleFunc("POST /v1beta/models/{call}", s.gemini)
	mux.HandleFunc("/", s.notFound)
	s.srv = &http.Server{Handler: s.record(mux)}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Reset forgets the recorded requests.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

func (s *Server) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		s.mu.Lock()
		i := len(s.requests)
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Body: body})
		s.mu.Unlock()
		r = r.WithContext(context.WithValue(r.Context(), requestIndex{}, i))
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	http.Error(w, `{"error":{"type":"not_found_error","message":"the mock does not serve this"}}`, http.StatusNotFound)
}

type streamFlag struct {
	Stream bool   `json:"stream"`
	Model  string `json:"model"`
}

func decodeStream(r *http.Request) streamFlag {
	var f streamFlag
	json.NewDecoder(r.Body).Decode(&f)
	if f.Model == "" {
		f.Model = "mock-model"
	}
	return f
}

func (s *Server) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	req := decodeStream(r)
	usage := map[string]int{"input_tokens": 1, "output_tokens": 3}
	block, stop := map[string]any{"type": "text", "text": Reply}, "end_turn"
	// Streamed, a block starts empty and gets its text, or its input as JSON, in
	// one delta.
	start, delta := map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": Reply}
	if call := s.skillCall(r, body); call != nil {
		input, _ := json.Marshal(call.Args)
		block = map[string]any{"type": "tool_use", "id": CallID, "name": call.Tool, "input": call.Args}
		start = map[string]any{"type": "tool_use", "id": CallID, "name": call.Tool, "input": map[string]any{}}
		delta, stop = map[string]any{"type": "input_json_delta", "partial_json": string(input)}, "tool_use"
	}
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": "msg_mock", "type": "message", "role": "assistant", "model": req.Model,
			"content":     []any{block},
			"stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	sse := newSSE(w)
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_mock", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
	sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 3}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

func (s *Server) openAIChat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	req := decodeStream(r)
	if call := s.skillCall(r, body); call != nil {
		s.chatToolCall(w, req, call)
		return
	}
	chatAnswer(w, req, map[string]any{"role": "assistant", "content": Reply}, "stop")
}

func (s *Server) chatToolCall(w http.ResponseWriter, req streamFlag, call *SkillCall) {
	args, _ := json.Marshal(call.Args)
	toolCall := map[string]any{"index": 0, "id": CallID, "type": "function", "function": map[string]any{"name": call.Tool, "arguments": string(args)}}
	chatAnswer(w, req, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{toolCall}}, "tool_calls")
}

// chatAnswer sends message as a Chat Completions answer, in one piece or streamed
// as one delta (without its null fields) and a last chunk with finish and usage.
func chatAnswer(w http.ResponseWriter, req streamFlag, message map[string]any, finish string) {
	usage := map[string]int{"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4}
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": message, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	delta := map[string]any{}
	for k, v := range message {
		if v != nil {
			delta[k] = v
		}
	}
	sse := newSSE(w)
	sse.data(chunk(delta, nil))
	last := chunk(map[string]any{}, finish)
	last["usage"] = usage
	sse.data(last)
	sse.raw("data: [DONE]\n\n")
}

// openAIResponses streams one answer the way the Responses API does: text, or
// the call the mock's model makes.
func (s *Server) openAIResponses(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	req := decodeStream(r)
	item := map[string]any{"type": "message", "id": "msg_mock", "status": "completed", "role": "assistant",
		"content": []map[string]any{{"type": "output_text", "text": Reply, "annotations": []any{}}}}
	started := map[string]any{"type": "message", "id": "msg_mock", "status": "in_progress", "role": "assistant", "content": []any{}}
	call := s.skillCall(r, body)
	if call != nil {
		args, _ := json.Marshal(call.Args)
		item = map[string]any{"type": "function_call", "id": "fc_mock", "call_id": CallID, "name": call.Tool, "arguments": string(args), "status": "completed"}
		started = map[string]any{"type": "function_call", "id": "fc_mock", "call_id": CallID, "name": call.Tool, "arguments": "", "status": "in_progress"}
	}
	response := func(status string, output []any) map[string]any {
		return map[string]any{"id": "resp_mock", "object": "response", "created_at": 0, "status": status, "model": req.Model, "output": output,
			"usage": map[string]any{"input_tokens": 1, "input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens": 3,
				"output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 4}}
	}
	sse := newSSE(w)
	sse.event("response.created", map[string]any{"type": "response.created", "response": response("in_progress", []any{})})
	sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": started})
	if call == nil {
		sse.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_mock", "output_index": 0, "content_index": 0, "delta": Reply})
	}
	sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse.event("response.completed", map[string]any{"type": "response.completed", "response": response("completed", []any{item})})
}

// gemini answers generateContent and streamGenerateContent (as SSE), with text or
// the skill-loading call.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	part := map[string]any{"text": Reply}
	if call := s.skillCall(r, body); call != nil {
		part = map[string]any{"functionCall": map[string]any{"name": call.Tool, "args": call.Args}}
	}
	answer := map[string]any{
		"candidates":    []map[string]any{{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]int{"promptTokenCount": 1, "candidatesTokenCount": 3, "totalTokenCount": 4},
		"modelVersion":  "mock-model",
	}
	if !bytes.Contains([]byte(r.PathValue("call")), []byte(":streamGenerateContent")) {
		writeJSON(w, answer)
		return
	}
	newSSE(w).data(answer)
}

func (s *Server) openAIModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"object": "list", "data": []map[string]any{{"id": "mock-model", "object": "model", "owned_by": "mock"}}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	f, _ := w.(http.Flusher)
	return sse{w: w, f: f}
}

func (s sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	s.raw(fmt.Sprintf("event: %s\ndata: %s\n\n", name, b))
}

func (s sse) data(v any) {
	b, _ := json.Marshal(v)
	s.raw(fmt.Sprintf("data: %s\n\n", b))
}

func (s sse) raw(text string) {
	io.WriteString(s.w, text)
	if s.f != nil {
		s.f.Flush()
	}
}
