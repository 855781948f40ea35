package registry

import (
	"errors"
	"fmt"
	"net"
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
// reads as an option. A password or token in the address is refused, and so is
// any user in an https:// one, where hosts take tokens as user names: it would
// be written into skillsync.yaml and the lock, and git would print it. An SSH
// user name (git@host) is no secret.
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
	// git reads file:PATH as host "file" over ssh, not as this machine's PATH.
	if strings.HasPrefix(strings.ToLower(remote), "file:") && !strings.HasPrefix(strings.ToLower(remote), "file://") {
		return fmt.Errorf("the git remote %s is not a file:// URL; git would reach a host called file over ssh; write file:///PATH", RedactRemote(remote))
	}
	if scpLike.MatchString(remote) && !strings.Contains(remote, "://") {
		_, p, _ := strings.Cut(remote, ":")
		return checkSegments("the git remote", remote, p)
	}
	u, err := url.Parse(remote)
	if err != nil {
		// url.Parse's message quotes the whole remote, secrets and all.
		return fmt.Errorf("the git remote %s is not a URL", RedactRemote(remote))
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
	_, hasPassword := u.User.Password()
	if hasPassword || (u.User != nil && u.Scheme != "ssh") {
		return fmt.Errorf("the git remote %s carries a user, password or token; give them to git through a credential helper instead (git help credentials)", RedactRemote(remote))
	}
	return checkSegments("the git remote", remote, u.EscapedPath())
}

// checkSegments refuses a path with a . or .. folder, or an encoded slash:
// where it leads depends on the server, or on links on the way, and a trust
// pattern would judge it by where it seems to lead.
func checkSegments(what, address, escaped string) error {
	if strings.Contains(strings.ToLower(escaped), "%2f") || strings.Contains(strings.ToLower(escaped), "%5c") {
		return fmt.Errorf("%s %s holds an encoded slash in its path", what, RedactRemote(address))
	}
	decoded, err := url.PathUnescape(escaped)
	if err != nil {
		decoded = escaped
	}
	for _, seg := range strings.Split(decoded, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("%s %s has a %s folder in its path; write the path it leads to", what, RedactRemote(address), seg)
		}
	}
	return nil
}

// RedactRemote is remote for messages: a password after the user name
// replaced, and in any remote but an SSH one the whole user part, which hosts
// take tokens in.
func RedactRemote(remote string) string {
	start, ssh := 0, !strings.Contains(remote, "://")
	if i := strings.Index(remote, "://"); i >= 0 {
		start, ssh = i+3, strings.EqualFold(remote[:i], "ssh")
	}
	rest := remote[start:]
	// The last '@': a password may hold '/', '?' or '#', and an '@' in a path
	// only costs a message some of its words.
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return remote
	}
	user := "REDACTED"
	if name, _, secret := strings.Cut(rest[:at], ":"); ssh {
		user = name
		if secret {
			user += ":REDACTED"
		}
	}
	return remote[:start] + user + rest[at:]
}

// userinfo is the user part of a URL in some text.
var userinfo = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^\s@]*@`)

// RedactAll replaces the user part, tokens and passwords, of every URL in text,
// such as git's stderr, which may quote a remote a user's configuration
// rewrote.
func RedactAll(text string) string {
	return userinfo.ReplaceAllString(text, "${1}REDACTED@")
}

// CheckIndexURL says why u cannot be read as a discovery index, or nil: it must
// be an https:// URL (http:// only to a loopback address, for a server under
// test), with no user, password or token in it.
func CheckIndexURL(u string) error { return checkReadURL("the index URL", u) }

// CheckArtifactURL is CheckIndexURL for the URL of a skill's artifact.
func CheckArtifactURL(u string) error { return checkReadURL("the artifact URL", u) }

func checkReadURL(what, u string) error {
	if strings.IndexFunc(u, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 {
		return fmt.Errorf("%s holds a space or a control character", what)
	}
	parsed, err := url.Parse(u)
	if err != nil {
		// url.Parse's message quotes the whole URL, secrets and all.
		return fmt.Errorf("%s %s is not a URL", what, RedactRemote(u))
	}
	switch {
	case parsed.Host == "":
		return fmt.Errorf("%s %s names no host", what, RedactRemote(u))
	case parsed.User != nil:
		return fmt.Errorf("%s %s carries a user or token; an index is read without credentials", what, RedactRemote(u))
	case checkSegments(what, u, parsed.EscapedPath()) != nil:
		return checkSegments(what, u, parsed.EscapedPath())
	case parsed.Scheme == "https":
		return nil
	case parsed.Scheme == "http" && Loopback(parsed.Hostname()):
		return nil
	}
	return fmt.Errorf("%s %s is not https://", what, RedactRemote(u))
}

// Loopback tells whether host is a loopback address, written as one: a name
// is not trusted to resolve to this machine.
func Loopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
