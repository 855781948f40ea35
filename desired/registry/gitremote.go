package registry

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// scpLike is git's short form of an SSH remote, user@host:path.
var scpLike = regexp.MustCompile(`^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:[^/\\].*$`)

// CheckGitRemote says why remote cannot be handed to git, or nil. Only the
// transports a skills source needs are allowed (https, http, ssh and its short
// form, file), so that no remote runs a command (git's ext:: and fd:: forms) or
// reads as an option. A password or token in the address is refused: it would
// be written into skillsync.yaml and the lock, and git would print it.
func CheckGitRemote(remote string) error {
	if remote == "" {
		return errors.New("the git remote is empty")
	}
	if strings.IndexFunc(remote, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 {
		return errors.New("the git remote holds a space or a control character")
	}
	if strings.HasPrefix(remote, "-") {
		return errors.New("the git remote starts with '-', which git would read as an option")
	}
	if scpLike.MatchString(remote) && !strings.Contains(remote, "://") {
		return nil
	}
	u, err := url.Parse(remote)
	if err != nil {
		return fmt.Errorf("the git remote is not a URL: %v", err)
	}
	switch u.Scheme {
	case "https", "http", "ssh":
		if u.Host == "" {
			return fmt.Errorf("the git remote %s names no host", RedactRemote(remote))
		}
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return fmt.Errorf("the git remote %s names a host; a file:// remote is a path on this machine", RedactRemote(remote))
		}
	default:
		return fmt.Errorf("the git remote %s uses %q; use https://, ssh://, user@host:path or file://", RedactRemote(remote), u.Scheme)
	}
	if _, hasPassword := u.User.Password(); hasPassword {
		return fmt.Errorf("the git remote %s carries a password or token; give it to git through a credential helper instead (git help credentials)", RedactRemote(remote))
	}
	return nil
}

// RedactRemote is remote with any password or token in it replaced, for messages.
func RedactRemote(remote string) string {
	u, err := url.Parse(remote)
	if err != nil || u.User == nil {
		return remote
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "REDACTED")
		return u.String()
	}
	return remote
}

// userinfo is a password or token in a URL of some text.
var userinfo = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*):[^@/\s]*@`)

// RedactAll replaces every password or token in a URL of text, such as git's
// stderr, which may quote a remote a user's configuration rewrote.
func RedactAll(text string) string {
	return userinfo.ReplaceAllString(text, "${1}:REDACTED@")
}
