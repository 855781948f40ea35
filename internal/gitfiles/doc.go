// Package gitfiles is what skillsync writes so that git treats the skills it
// generates as the workspace says: a file in each target directory, naming the
// generated files in it, for git to ignore them or to mark them as generated for
// review tools.
//
// It imports, of this module: internal/workspacefs.
package gitfiles
