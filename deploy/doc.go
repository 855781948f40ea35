// Package deploy holds the dev container and Kubernetes manifests skillsync
// runs in, and the tests that check them at the process level: no Docker engine
// is needed to run them; and the Renovate preset (renovate/skillsync.json) that
// moves the sources' pins across repositories, its patterns checked under RE2.
//
// It imports nothing of this module.
package deploy
