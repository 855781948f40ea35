// Package schema holds the JSON Schemas of skillsync's input files, for editors to
// validate and complete them: workspace.json for skillsync.yaml, capability.json,
// skill.json and profile.json for one registry document of each kind, and
// registry.json for a registry file whose documents may be of any kind.
//
// The schemas are generated from the Go types the loader decodes into
// (desired/registry), their doc comments and the validator's rules; the package's
// tests fail while a committed schema differs from what the types give, and
// `go test ./schema -update` writes them again. The package has no code: the
// generator is a test, so nothing of it is linked into skillsync.
//
// output/ holds a JSON Schema per kind of document the commands print for -o json
// and -o yaml (reconcile-result.json, status.json, …). They are generated from the
// command line's own output types by cmd/skillsync's tests, which also validate
// the real commands' output against them; `go test ./cmd/skillsync -run
// OutputSchemas -update-schemas` writes them again.
//
// It imports nothing of this module.
package schema
