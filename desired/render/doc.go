// Package render turns one skill into the bytes of its SKILL.md for one target
// directory. How the directory's readers differ (front matter keys, how the body
// refers to the text the user typed, what must be escaped, how an MCP tool is
// named) comes from the client table; everything else is shared.
//
// It imports, of this module: clients, internal/banner, internal/printable.
package render
