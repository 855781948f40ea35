// Package agentskills checks a SKILL.md against the Agent Skills specification as
// strictly as its strictest reader (Zed): the rules every client of .agents/skills
// can rely on.
//
// It imports nothing of this module.
package agentskills
