// Package wellknown reads skills from an Agent Skills discovery index (the
// 0.2.0 form served at /.well-known/agent-skills/index.json): it reads the index,
// fetches each skill's artifact (a SKILL.md, or a .tar.gz or .zip archive of the
// skill directory) into a content-addressed cache in the user's cache directory,
// verifies every artifact by its digest whenever it is read, and unpacks
// archives refusing what could reach outside the skill directory or fill the
// disk.
//
// It imports, of this module: desired/registry, internal/banner,
// internal/workspacefs.
package wellknown
