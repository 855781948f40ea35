// Package serve makes a workspace's desired skills for one target directory
// into the catalog the MCP skills extension lists, each file as it would be
// written there: what `skillsync serve` publishes to agents that have no
// workspace of their own. It reads and writes nothing itself.
//
// It imports, of this module: clients, desired, desired/registry,
// sources/mcp/skillserver.
package serve
