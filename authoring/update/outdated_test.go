package update

import (
	"slices"
	"testing"
)

func TestNewerReleasesAreSemanticVersionsAboveTheRefNewestFirst(t *testing.T) {
	tags := []string{"v1.1.0", "v1.3.0", "v2.0.0", "v2.0.0-rc1", "latest", "1.4.0", "v1.2.0", "v10.0.0", "v1.2.0+build"}
	got := newerReleases("v1.2.0", tags)
	want := []string{"v10.0.0", "v2.0.0", "1.4.0", "v1.3.0"}
	if !slices.Equal(got, want) {
		t.Errorf("newerReleases = %v, want %v", got, want)
	}
	if got := newerReleases("1.3", tags); !slices.Equal(got, []string{"v10.0.0", "v2.0.0", "1.4.0"}) {
		t.Errorf("newerReleases(1.3) = %v", got)
	}
	for _, ref := range []string{"main", "v2.0.0-rc1", ""} {
		if release(ref) != "" {
			t.Errorf("release(%q) = %q, want none", ref, release(ref))
		}
	}
}
