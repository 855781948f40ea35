package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
)

// The collector is held off while the packages initialize and runs again once
// they are, at the pace the environment sets.
func TestTheCollectorRunsOnceThePackagesAreInitialized(t *testing.T) {
	if os.Getenv("GOGC") == "off" {
		t.Skip("GOGC=off turns the collector off for the whole run")
	}
	if growth := gcPercent(); growth < 0 {
		t.Errorf("after the packages initialized, GOGC is %d: the collector is still off", growth)
	}
}

// No collection runs before main: the package that holds the collector off is
// initialized before the large initializers, and main's package turns it back
// on only after them.
func TestNoCollectionRunsWhileThePackagesInitialize(t *testing.T) {
	cmd := exec.Command(testkit.Binary(t), "version")
	cmd.Env = append(os.Environ(), "GOGC=", "GODEBUG=gctrace=1,inittrace=1")
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
