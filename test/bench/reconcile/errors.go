//go:build linux

package main

import (
	"bytes"
	"fmt"
	"strings"
)

type runError struct {
	argv   []string
	rc     int
	output string
}

func (e *runError) Error() string {
	return fmt.Sprintf("%s: exit %d: %s", strings.Join(e.argv, " "), e.rc, strings.TrimSpace(e.output))
}

// limitedBuffer keeps the first 4 KiB a command prints: enough to say why it
// failed without holding a peer's whole log.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
