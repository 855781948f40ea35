// Package workspacegen writes benchmark workspaces: N capabilities with realistic
// titles and input schemas, spread over registry files the way a large monorepo
// splits them, plus a few workflow skills, all enabled for the three targets.
//
// It imports, of this module: desired/registry.
package workspacegen
