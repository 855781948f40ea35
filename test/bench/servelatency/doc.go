// Command servelatency measures skillsync serve over stdio, as an MCP client
// sees it: skills/list of a workspace of N capabilities against ping, the
// transport's floor, and a registry save to the notification that the skills
// changed. make bench runs it after test/bench/reconcile; docs/performance.md
// keeps its table.
//
// It imports, of this module: internal/testkit/benchkit, test/bench/workspacegen.
package main
