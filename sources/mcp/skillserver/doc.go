// Package skillserver publishes skills from a server built with the MCP Go SDK
// through the MCP skills extension, which the SDK does not implement: it answers
// skills/list and skills/get on the server's connection, and serves each file
// as a resource. `skillsync serve` publishes a workspace's skills with it;
// skillsync's tests run servers with it too, and may forge a catalog to play a
// server that lies.
//
// It imports nothing of this module.
package skillserver
