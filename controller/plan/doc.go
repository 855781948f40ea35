// Package plan decides, for every path of the target directories, what a pass
// does with it: desired and observed state in, a Plan out, following the plan
// table in docs/ownership.md. It is pure: it reads and writes nothing.
//
// It imports, of this module: clients, desired, internal/banner,
// internal/parallel, observed.
package plan
