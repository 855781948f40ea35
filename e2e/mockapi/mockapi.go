// Package mockapi is a model API on 127.0.0.1 that speaks enough of the Anthropic
// Messages API and the OpenAI Chat Completions API for Claude Code and Qwen Code to
// run a prompt against it. It answers every prompt with a short text and records
// every request so a test can read what the client sent.
package mockapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
)

// Reply is the text every completion answers with.
const Reply = "ok from the mock"

// Request is one recorded HTTP request.
type Request struct {
	Method string
	Path   string
	Body   []byte
}

// Server is a running mock.
type Server struct {
	URL      string // http://127.0.0.1:PORT
	srv      *http.Server
	mu       sync.Mutex
	requests []Request
}

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
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Body: body})
		s.mu.Unlock()
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
	req := decodeStream(r)
	usage := map[string]int{"input_tokens": 1, "output_tokens": 3}
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": "msg_mock", "type": "message", "role": "assistant", "model": req.Model,
			"content":     []map[string]any{{"type": "text", "text": Reply}},
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": usage,
		})
		return
	}
	sse := newSSE(w)
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_mock", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": Reply}})
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 3}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

func (s *Server) openAIChat(w http.ResponseWriter, r *http.Request) {
	req := decodeStream(r)
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": Reply}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4},
		})
		return
	}
	sse := newSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	sse.data(chunk(map[string]any{"role": "assistant", "content": Reply}, nil))
	last := chunk(map[string]any{}, "stop")
	last["usage"] = map[string]int{"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4}
	sse.data(last)
	sse.raw("data: [DONE]\n\n")
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
