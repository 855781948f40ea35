// Package observed reads what is on disk in the target directories and says, for each
// skill file, whether skillsync owns it; and, for status, the signs that a client is
// used and the skills in the clients' personal directories. It only reads.
//
// It imports, of this module: clients, internal/banner, internal/gitfiles,
// internal/parallel, internal/workspacefs.
package observed
