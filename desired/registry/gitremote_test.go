package registry

import (
	"strings"
	"testing"
)

func TestCheckGitRemote(t *testing.T) {
	for _, ok := range []string{
		"https://git.example.com/acme/skills.git",
		"ssh://git@git.example.com/acme/skills.git",
		"git@github.com:acme/skills.git",
		"file:///srv/git/skills.git",
	} {
		if err := CheckGitRemote(ok); err != nil {
			t.Errorf("CheckGitRemote(%q) = %v", ok, err)
		}
	}
	for remote, want := range map[string]string{
		"ext::sh -c touch% /tmp/pwned":        "space",
		"ext::sh":                             `uses "ext"`,
		"fd::17":                              `uses "fd"`,
		"--upload-pack=touch /tmp/x":          "space",
		"-uhelp":                              "starts with '-'",
		"https://me:s3cret@git.example.com/x": "credential helper",
		"https://git.example.com/x\n":         "control character",
		"":                                    "empty",
		"https:///x":                          "no host",
		"file://elsewhere/srv/x":              "names a host",
		"/srv/git/skills.git":                 "use https://",
	} {
		err := CheckGitRemote(remote)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckGitRemote(%q) = %v, want it to say %q", remote, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("CheckGitRemote(%q) repeats the token: %v", remote, err)
		}
	}
}

func TestRedactKeepsNoSecret(t *testing.T) {
	for in, want := range map[string]string{
		"https://me:s3cret@host/x.git":  "https://REDACTED@host/x.git",
		"https://ghp_s3cret@host/x.git": "https://REDACTED@host/x.git",
		"ssh://git@host/x.git":          "ssh://git@host/x.git",
		"ssh://git:s3cret@host/x.git":   "ssh://git:REDACTED@host/x.git",
		"git@host:x.git":                "git@host:x.git",
		"user:s3cret@host:x.git":        "user:REDACTED@host:x.git",
		// An @ in a path costs the message some words, never a secret.
		"https://host/x@y.git":          "https://REDACTED@y.git",
		"https://user:s3cr%zzet@host/x": "https://REDACTED@host/x",
	} {
		if got := RedactRemote(in); got != want {
			t.Errorf("RedactRemote(%q) = %q, want %q", in, got, want)
		}
	}
	if got := RedactAll("fatal: unable to access 'https://ghp_s3cret@host/x.git/': 403; also http://u:s3cret@h/ and https://me:se/cr3t@h/"); strings.Contains(got, "s3cret") || strings.Contains(got, "cr3t") {
		t.Errorf("RedactAll kept a secret: %s", got)
	}
}
