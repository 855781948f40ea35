// Package workspacefs holds the few file operations every part of skillsync needs
// inside a workspace: all of them go through an *os.Root, so no path, symlink or race
// can make them reach outside the workspace.
//
// It imports nothing of this module.
package workspacefs
