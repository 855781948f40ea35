//go:build windows

package workspacefs

import "testing"

func makeFIFO(t *testing.T, path string) {
	t.Skip("Windows has no FIFOs in the filesystem")
}
