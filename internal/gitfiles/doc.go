// Package gitfiles is what skillsync writes so that git treats the skills it
// generates as the workspace says: a file beside each generated SKILL.md, owned
// like it, for git to ignore the skill or to mark it as generated for review tools.
//
// It imports, of this module: internal/workspacefs.
package gitfiles
