// Package clients is what skillsync knows about the agent clients it writes skills
// for: the target directories, which clients read each, the names each client
// already answers to, and the signs that a client is used in a workspace. Every
// other package asks here; docs/clients.md describes the same table.
//
// It imports nothing of this module.
package clients
