package testkit

import "testing"

func TestWithoutExitSleep(t *testing.T) {
	for _, c := range []struct{ gorace, want string }{
		{"", "atexit_sleep_ms=0"},
		{"halt_on_error=1", "atexit_sleep_ms=0 halt_on_error=1"},
		{"atexit_sleep_ms=500 halt_on_error=1", "atexit_sleep_ms=500 halt_on_error=1"},
	} {
		if got := withoutExitSleep(c.gorace); got != c.want {
			t.Errorf("withoutExitSleep(%q) = %q, want %q", c.gorace, got, c.want)
		}
	}
}
