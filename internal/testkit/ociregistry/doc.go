// Package ociregistry serves an OCI registry to tests and benchmarks the way a
// registry host does: go-containerregistry's registry, in memory, on a
// loopback port, counting the requests it answers and, when told to, asking
// for a user and password as a private registry does.
//
// It imports nothing of this module.
package ociregistry
