package skillserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	yaml "go.yaml.in/yaml/v3"
)

// Extension is the name a server declares the skills extension by.
const Extension = "io.modelcontextprotocol/skills"

// Entry is a skill as skills/list and skills/get describe it. Resources is the
// manifest ([]File) or the string "dynamic".
type Entry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   any            `json:"resources"`
}

// File is one file of a manifest.
type File struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// Catalog is what the server publishes: the entries, and the bytes of every
// file by URI.
type Catalog struct {
	Entries []Entry
	Files   map[string][]byte
	// Endless forges a listing that never ends: each skills/list answer is a
	// page of the entries with a cursor to yet another.
	Endless bool
}

// Honest is the catalog of skills given as files by skill path (like
// "git-workflow" or "acme/refunds") and file path within the skill: each
// entry's manifest and frontmatter are those of its files.
func Honest(skills map[string]map[string]string) (Catalog, error) {
	c := Catalog{Files: map[string][]byte{}}
	for _, dir := range slices.Sorted(maps.Keys(skills)) {
		uri := "skill://" + dir + "/SKILL.md"
		e := Entry{URI: uri}
		var manifest []File
		for _, name := range slices.Sorted(maps.Keys(skills[dir])) {
			content := []byte(skills[dir][name])
			fileURI := "skill://" + dir + "/" + name
			sum := sha256.Sum256(content)
			manifest = append(manifest, File{URI: fileURI, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: len(content)})
			c.Files[fileURI] = content
		}
		e.Resources = manifest
		front, _, _ := strings.Cut(strings.TrimPrefix(skills[dir]["SKILL.md"], "---\n"), "\n---\n")
		if err := yaml.Unmarshal([]byte(front), &e.Frontmatter); err != nil {
			return Catalog{}, fmt.Errorf("%s: %v", uri, err)
		}
		c.Entries = append(c.Entries, e)
	}
	return c, nil
}

// Publisher serves a catalog from an SDK server; Set replaces it while the
// server runs, which its clients hear of as a change of the resource list.
type Publisher struct {
	server *mcp.Server
	mu     sync.Mutex
	cat    Catalog
	// listing is skills/list's answer for cat, encoded once: a listing of a
	// thousand skills is asked for far more often than it changes.
	listing json.RawMessage
}

// Capabilities are the server options' capabilities that declare the extension,
// and the resources it requires, even before any skill is published.
func Capabilities() *mcp.ServerCapabilities {
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{ListChanged: true}}
	caps.AddExtension(Extension, map[string]any{"directoryRead": true})
	return caps
}

// Publish serves cat from server, which was made with Capabilities.
func Publish(server *mcp.Server, cat Catalog) *Publisher {
	p := &Publisher{server: server}
	server.AddReceivingMiddleware(namedInJSON)
	p.Set(cat)
	return p
}

// notFound is the error of a read of a URI nothing is served at, the URI in
// its data as JSON writes it.
func notFound(uri string) error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found", Data: data}
}

// namedInJSON answers a read of a URI that the SDK's own not-found error
// (mcp.ResourceNotFoundError) cannot name, before the SDK looks it up: that
// error writes the URI with Go's escapes, which a control character or an
// invisible code point turns into invalid JSON, and an answer that cannot be
// written ends the session, and over stdio the server. No such URI is served.
func namedInJSON(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if read, ok := req.(*mcp.ReadResourceRequest); ok && read.Params != nil && !json.Valid(fmt.Appendf(nil, `{"uri":%q}`, read.Params.URI)) {
			return nil, notFound(read.Params.URI)
		}
		return next(ctx, method, req)
	}
}

// Set publishes cat in place of what was published.
func (p *Publisher) Set(cat Catalog) {
	listing, _ := json.Marshal(map[string]any{"resultType": "complete", "skills": cat.Entries, "ttlMs": 0, "cacheScope": "public"})
	p.mu.Lock()
	old := p.cat
	p.cat, p.listing = cat, listing
	p.mu.Unlock()
	// A file whose bytes changed under the same URI is removed and added again:
	// the extension has no notification of its own, and a client hears of a
	// changed skill only as a change of the resource list.
	for uri, was := range old.Files {
		if now, kept := cat.Files[uri]; !kept || !bytes.Equal(now, was) {
			p.server.RemoveResources(uri)
		}
	}
	skillMDs := map[string]Entry{}
	for _, e := range cat.Entries {
		skillMDs[e.URI] = e
	}
	for uri, now := range cat.Files {
		if was, had := old.Files[uri]; !had || !bytes.Equal(now, was) {
			r := &mcp.Resource{URI: uri, Name: uri, MIMEType: mimeType(uri, now)}
			// A SKILL.md is named and described as its front matter says.
			if e, ok := skillMDs[uri]; ok {
				r.Name, _ = e.Frontmatter["name"].(string)
				r.Description, _ = e.Frontmatter["description"].(string)
			}
			p.server.AddResource(r, p.read)
		}
	}
}

// mimeType is what a file is served as: a SKILL.md as Markdown, other text as
// plain text, and anything that is not UTF-8 text as bytes.
func mimeType(uri string, content []byte) string {
	switch {
	case !utf8.Valid(content) || bytes.IndexByte(content, 0) >= 0:
		return "application/octet-stream"
	case strings.HasSuffix(uri, ".md"):
		return "text/markdown"
	}
	return "text/plain"
}

func (p *Publisher) read(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	p.mu.Lock()
	content, ok := p.cat.Files[req.Params.URI]
	p.mu.Unlock()
	if !ok {
		return nil, notFound(req.Params.URI)
	}
	contents := &mcp.ResourceContents{URI: req.Params.URI, MIMEType: mimeType(req.Params.URI, content)}
	if contents.MIMEType == "application/octet-stream" {
		contents.Blob = content
	} else {
		contents.Text = string(content)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{contents}}, nil
}

// Transport is the server's side of t, answering the extension's methods.
func (p *Publisher) Transport(t mcp.Transport) mcp.Transport { return transport{t, p} }

type transport struct {
	mcp.Transport
	p *Publisher
}

func (t transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return conn{c, t.p}, nil
}

type conn struct {
	mcp.Connection
	p *Publisher
}

func (c conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || !extensionMethod(req.Method) {
			return msg, err
		}
		if !req.IsCall() {
			continue // a notification gets no answer, and the extension defines none
		}
		if err := c.Connection.Write(ctx, c.p.answer(req)); err != nil {
			return nil, err
		}
	}
}

func (p *Publisher) answer(req *jsonrpc.Request) *jsonrpc.Response {
	p.mu.Lock()
	entries, endless, listing := p.cat.Entries, p.cat.Endless, p.listing
	p.mu.Unlock()
	var result any
	switch req.Method {
	case "skills/list":
		if !endless {
			return &jsonrpc.Response{ID: req.ID, Result: listing}
		}
		var params struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(req.Params, &params)
		result = map[string]any{"resultType": "complete", "skills": entries, "ttlMs": 0, "cacheScope": "public", "nextCursor": params.Cursor + "x"}
	case "skills/get":
		var params struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(req.Params, &params)
		i := slices.IndexFunc(entries, func(e Entry) bool { return e.URI == params.URI })
		if i < 0 {
			return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no skill is served at " + params.URI}}
		}
		result = map[string]any{"resultType": "complete", "skill": entries[i], "ttlMs": 0, "cacheScope": "public"}
	case directoryRead:
		var params struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(req.Params, &params)
		p.mu.Lock()
		children := childrenOf(p.cat.Files, params.URI)
		p.mu.Unlock()
		if children == nil {
			return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: params.URI + " is not a directory resource"}}
		}
		result = map[string]any{"resultType": "complete", "resources": children}
	default:
		return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: req.Method + " is not a method of the skills extension"}}
	}
	raw, _ := json.Marshal(result)
	return &jsonrpc.Response{ID: req.ID, Result: raw}
}

// directoryRead is the extension's method that lists a directory's direct
// children; every directory of a served skill is a directory resource.
const directoryRead = "resources/directory/read"

// extensionMethod tells whether method is the extension's, answered here
// rather than by the SDK.
func extensionMethod(method string) bool {
	return strings.HasPrefix(method, "skills/") || method == directoryRead
}

// childrenOf are the direct children of the directory resource dir among
// files, by URI: files as resources, subdirectories as inode/directory; nil
// when dir is no directory of them.
func childrenOf(files map[string][]byte, dir string) []*mcp.Resource {
	if dir == "" || strings.HasSuffix(dir, "/") {
		return nil
	}
	seen := map[string]*mcp.Resource{}
	for uri, content := range files {
		rest, ok := strings.CutPrefix(uri, dir+"/")
		if !ok {
			continue
		}
		segment, _, nested := strings.Cut(rest, "/")
		name, err := url.PathUnescape(segment)
		if err != nil {
			name = segment
		}
		switch {
		case nested:
			seen[segment] = &mcp.Resource{URI: dir + "/" + segment, Name: name, MIMEType: "inode/directory"}
		default:
			seen[segment] = &mcp.Resource{URI: uri, Name: name, MIMEType: mimeType(uri, content)}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	out := make([]*mcp.Resource, 0, len(seen))
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		out = append(out, seen[name])
	}
	return out
}

// maxBody bounds a request's body as the SDK's Streamable HTTP handler does.
const maxBody = mcp.DefaultMaxRequestBodyBytes

// Handler serves the extension's methods in front of next, an SDK Streamable
// HTTP handler, which the SDK gives no way to wrap a connection of: a POST of a
// skills/ request is answered here, as JSON, and every other request is next's.
func (p *Publisher) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		msg, err := jsonrpc.DecodeMessage(body)
		if req, ok := msg.(*jsonrpc.Request); err == nil && ok && req.IsCall() && extensionMethod(req.Method) {
			data, err := jsonrpc.EncodeMessage(p.answer(req))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(data)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}
