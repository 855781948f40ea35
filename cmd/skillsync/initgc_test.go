package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
)

// paceProbe, in the environment of the tests' own binary, has TestPaceProbe
// print the collector's pace as the packages' initialization left it.
const paceProbe = "SKILLSYNC_TEST_PACE_PROBE"

func TestPaceProbe(t *testing.T) {
	if os.Getenv(paceProbe) == "" {
		t.Skip("run by TestTheCollectorRunsAtThePaceGOGCSets")
	}
	fmt.Printf("pace after init: %d\n", gcPercent())
}

// The collector is held off while the packages initialize and runs again once
// they are, at the pace GOGC in the environment gives it, off included.
func TestTheCollectorRunsAtThePaceGOGCSets(t *testing.T) {
	for value, want := range map[string]int{"": 100, "off": -1, "0": 0, "50": 50, "-5": -1, "abc": 100} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPaceProbe$", "-test.count=1")
		cmd.Env = append(os.Environ(), paceProbe+"=1", "GOGC="+value)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GOGC=%q: %v\n%s", value, err, out)
		}
		_, after, found := strings.Cut(string(out), "pace after init: ")
		got, convErr := strconv.Atoi(strings.TrimSpace(strings.SplitN(after, "\n", 2)[0]))
		if !found || convErr != nil {
			t.Fatalf("GOGC=%q: the probe printed no pace:\n%s", value, out)
		}
		if got != want {
			t.Errorf("GOGC=%q: after the packages initialized, the pace is %d, want %d", value, got, want)
		}
	}
}

// No collection runs before main: the package that holds the collector off is
// initialized before the large initializers, and main's package turns it back
// on only after them.
func TestNoCollectionRunsWhileThePackagesInitialize(t *testing.T) {
	cmd := exec.Command(testkit.Binary(t), "version")
	cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=off", "GODEBUG=gctrace=1,inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("skillsync version: %v\n%s", err, stderr.String())
	}
	var held, validator bool
	for _, line := range strings.Split(stderr.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "init github.com/skillsync/skillsync/internal/initgc "):
			held = true
		case strings.HasPrefix(line, "init github.com/santhosh-tekuri/jsonschema/v6 "):
			validator = true
			if !held {
				t.Errorf("the JSON Schema validator initialized before the collector was held off:\n%s", stderr.String())
			}
		case strings.HasPrefix(line, "gc "):
			t.Fatalf("a collection ran while the packages initialized: %q\n%s", line, stderr.String())
		case strings.HasPrefix(line, "init main "):
			if !held || !validator {
				t.Errorf("main initialized without initgc (%v) or the validator (%v) before it:\n%s", held, validator, stderr.String())
			}
			return
		}
	}
	t.Fatalf("no line says main initialized:\n%s", stderr.String())
}
