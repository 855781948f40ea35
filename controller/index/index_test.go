package index

import (
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Each stamp is given the margin of its own clock: two seconds where its times are
// whole seconds, a fraction of a second where they are finer, whatever the other
// stamps are. A whole-second stamp in the second a pass began is racily clean,
// beside a nanosecond one that is not.
func TestRacyMarginIsEachStamps(t *testing.T) {
	second := int64(time.Second)
	whole := workspacefs.Stamp{Valid: true, Mtime: 1_700_000_000 * second, Ctime: 1_700_000_002 * second}
	if got := racyMargin(whole); got != 2*time.Second {
		t.Errorf("whole seconds: margin %v, want 2s", got)
	}
	fine := workspacefs.Stamp{Valid: true, Mtime: 1_700_000_000*second + 123, Ctime: 1_700_000_000 * second}
	if got := racyMargin(fine); got >= time.Second || got < 10*time.Millisecond {
		t.Errorf("nanoseconds: margin %v, want a fraction of a second above a clock tick", got)
	}
	began := time.Unix(1_700_000_002, 300_000_000)
	if !racilyClean(whole, began) {
		t.Error("a whole-second stamp of the second the pass began in is taken as clean")
	}
	if racilyClean(fine, began) {
		t.Error("a nanosecond stamp two seconds older than the pass is taken as racily clean")
	}
}
