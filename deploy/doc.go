// Package deploy holds the dev container and Kubernetes manifests skillsync
// runs in, and the tests that check them at the process level: no Docker engine
// is needed to run them.
//
// It imports nothing of this module.
package deploy
