package plan

import (
	"testing"
	"unsafe"

	"github.com/skillsync/skillsync/desired"
)

// A plan holds a Change per file and a copy of the desired.File of each create
// and update: at N = 10 000 about 36 000 of each, so every 8 bytes of padding
// cost about 0.3 MB of live data. The small fields sit together at the end.
func TestAChangeAndAWantedFileHoldNoPadding(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are measured where pointers take 8 bytes")
	}
	if got := unsafe.Sizeof(Change{}); got > 160 {
		t.Errorf("a Change takes %d bytes, want at most 160", got)
	}
	if got := unsafe.Sizeof(desired.File{}); got > 144 {
		t.Errorf("a desired.File takes %d bytes, want at most 144", got)
	}
}
