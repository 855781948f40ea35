package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// extensionTransport lets a client session also carry requests the SDK has no
// method for, such as those of the skills extension: they travel on the same
// connection, with ids of their own, and their responses never reach the SDK.
// The wrapped connection hides from the SDK what it tells its own Streamable
// HTTP connection, so over HTTP it carries a session of its own (Transport.connect).
type extensionTransport struct {
	mcp.Transport
	conn *extensionConn
}

func withExtensions(t mcp.Transport) *extensionTransport { return &extensionTransport{Transport: t} }

func (t *extensionTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &extensionConn{Connection: c, waiting: map[string]chan *jsonrpc.Response{}}
	return t.conn, nil
}

type extensionConn struct {
	mcp.Connection
	mu      sync.Mutex
	waiting map[string]chan *jsonrpc.Response
	next    int
	// meta is the _meta of the SDK's last request: under the stateless protocol
	// each request says its protocol version and client there, so ours say the same.
	meta json.RawMessage
}

func (c *extensionConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
			if id, ok := resp.ID.Raw().(string); ok {
				c.mu.Lock()
				ch := c.waiting[id]
				delete(c.waiting, id)
				c.mu.Unlock()
				if ch != nil {
					ch <- resp
					continue
				}
			}
		}
		return msg, err
	}
}

func (c *extensionConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		var params struct {
			Meta json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(req.Params, &params) == nil && len(params.Meta) > 0 {
			c.mu.Lock()
			c.meta = params.Meta
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, msg)
}

// call sends method with params and decodes the result into result. The SDK's
// session must be running: its reader delivers the response here.
func (c *extensionConn) call(ctx context.Context, method string, params map[string]any, result any) error {
	c.mu.Lock()
	c.next++
	key := fmt.Sprintf("skillsync-%d", c.next)
	ch := make(chan *jsonrpc.Response, 1)
	c.waiting[key] = ch
	if c.meta != nil {
		params["_meta"] = c.meta
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, key)
		c.mu.Unlock()
	}()
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	id, err := jsonrpc.MakeID(key)
	if err != nil {
		return err
	}
	if err := c.Connection.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case resp := <-ch:
		if resp.Error != nil {
			var wire *jsonrpc.Error
			if errors.As(resp.Error, &wire) {
				return fmt.Errorf("%s: the server answered error %d: %s", method, wire.Code, wire.Message)
			}
			return fmt.Errorf("%s: %w", method, resp.Error)
		}
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("%s: the answer is not what the skills extension specifies: %w", method, err)
		}
		return nil
	}
}
