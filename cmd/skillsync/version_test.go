package main

import (
	"encoding/json"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
)

// A release build says what the linker was told; --version and `version` agree.
func TestReleaseBuildVersion(t *testing.T) {
	bin := testkit.Build(t, "./cmd/skillsync", nil, "-ldflags", "-X main.version=v1.2.3 -X main.commit=0123abc -X main.date=2026-12-01T00:00:00Z")
	want := "skillsync v1.2.3\n" +
		"  commit:     0123abc\n" +
		"  built:      2026-12-01T00:00:00Z\n" +
		"  go:         " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n" +
		"  apiVersion: skillsync/v1\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil || string(out) != want {
			t.Errorf("skillsync %s = %q (%v), want %q", strings.Join(args, " "), out, err, want)
		}
	}
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	var got versionJSON
	if err != nil || json.Unmarshal(out, &got) != nil || got.Kind != kindVersion || got.APIVersion != "skillsync/v1" ||
		got.Version != "v1.2.3" || got.Commit != "0123abc" || got.BuildDate != "2026-12-01T00:00:00Z" {
		t.Errorf("version -o json = %s (%v)", out, err)
	}
}

// Without linker flags the version is the module's (go install …@v1.2.3) and the
// commit the VCS stamp of a build in a checkout.
func TestVersionFromModule(t *testing.T) {
	for _, c := range []struct {
		name string
		info debug.BuildInfo
		want buildInfo
	}{
		{"go install at a tag",
			debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			buildInfo{Version: "v1.2.3"}},
		{"a build in a modified checkout",
			debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130235953-756e1c10e7c9+dirty"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "756e1c1"}, {Key: "vcs.time", Value: "2026-11-30T23:59:53Z"}, {Key: "vcs.modified", Value: "true"}}},
			buildInfo{Version: "v0.0.0-20261130235953-756e1c10e7c9+dirty", Commit: "756e1c1", CommitDate: "2026-11-30T23:59:53Z", Modified: true}},
		{"go run, no VCS stamp",
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			buildInfo{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got buildInfo
			fromModule(&got, &c.info)
			if got != c.want {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}
