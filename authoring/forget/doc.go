// Package forget hands a skill skillsync generates back to the people of the
// workspace, as chezmoi forget stops managing a file and leaves it in place: it
// takes the banner off every file generated for the skill, so each becomes a
// file a person owns, and lists the name in spec.disabled of skillsync.yaml, so
// the registry no longer wants it. The edit of skillsync.yaml is a text edit
// that keeps every other byte, checked by decoding the result (pure).
//
// It imports, of this module: clients, controller/apply, controller/plan,
// internal/banner, internal/workspacefs, observed.
package forget
