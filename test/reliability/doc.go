// Package reliability holds the adversarial suites behind `make reliability`:
// they show with figures that skillsync never loses a person's file, never leaves
// a partial one, and never writes outside the workspace. Each suite records one
// row of the table TestMain prints. They run the skillsync binary; the suites
// build only with the reliability tag, on Linux.
//
// It imports nothing of this module.
package reliability
