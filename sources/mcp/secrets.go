package mcp

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/skillsync/skillsync/desired/registry"
)

// MinSecret is the length below which a configured value is no credential:
// values like 1, true or 8080 are not kept out of messages and answers, where
// they would turn up by chance.
const MinSecret = 8

// secret is the value of a ${VAR} a server's configuration reads from the
// environment, for a header or the server's env: it goes to that server alone,
// and is never printed or recorded.
type secret struct {
	name  string // ${VAR}
	value string
	at    string // where the configuration reads it
}

// secrets are those of one server, longest first, so that a value holding
// another is replaced whole.
type secrets []secret

var reference = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// UnsetError is a ${VAR} of a server's configuration that the environment does
// not set: the server is neither started nor sent anything.
type UnsetError struct {
	Var string
	At  string // where the configuration reads it
}

func (e *UnsetError) Error() string {
	return fmt.Sprintf("${%s}, read at %s, is not set (or is empty), so the server was neither started nor sent anything; set it in the environment", e.Var, e.At)
}

// expand replaces each ${VAR} in the value under keys (headers, NAME) with what
// lookup gives for VAR, adding it to the secrets; a VAR unset or empty is an
// UnsetError. A header's value without a ${VAR}, which .mcp.json allows, is a
// secret itself, named by its key: what a header carries is a credential as
// often as not, but for the headers of content negotiation (plainHeaders); each
// word of an Authorization header's is one too. An env value without one is
// not: it is configuration (a path, a level) as often as not, and one a server
// repeats would stop its refresh.
func (s Server) expand(v string, lookup func(string) (string, bool), found *secrets, keys ...string) (string, error) {
	header := len(keys) > 0 && keys[0] == "headers"
	if header && !reference.MatchString(v) {
		if name := keys[len(keys)-1]; !slices.ContainsFunc(plainHeaders, func(h string) bool { return strings.EqualFold(h, name) }) {
			found.add(secret{name: strings.Join(keys, "."), value: v, at: s.at(keys...)}, isAuthorization(name))
		}
		return v, nil
	}
	var unset error
	out := reference.ReplaceAllStringFunc(v, func(ref string) string {
		name := reference.FindStringSubmatch(ref)[1]
		value, ok := lookup(name)
		if !ok || value == "" {
			unset = cmp.Or(unset, error(&UnsetError{Var: name, At: s.at(keys...)}))
			return ""
		}
		found.add(secret{name: ref, value: value, at: s.at(keys...)}, header)
		return value
	})
	return out, unset
}

// at is where the configuration of s gives the value under keys.
func (s Server) at(keys ...string) string {
	if s.Where != nil {
		return s.Where(keys...)
	}
	return ConfigFile + " (mcpServers." + s.Name + "." + strings.Join(keys, ".") + ")"
}

// urlSecrets adds to found what u, the url of s, may carry as a credential: its
// user name and password (several hosts take a token as the user name) and the
// value of each query parameter (an API key) or the whole of one without a
// value, and its fragment, as written and decoded, each where it is as long as
// a secret is (MinSecret). Go's HTTP errors quote the url with the password
// masked but the rest as it is. A credential in the url's path cannot be told
// from a path, and is not.
func (s Server) urlSecrets(u *url.URL, found *secrets) {
	at := s.at("url")
	var parts [][2]string // a name, then a value as written
	if u.User != nil {
		user, password, hasPassword := strings.Cut(u.User.String(), ":")
		parts = append(parts, [2]string{"the url's user name", user})
		if hasPassword {
			parts = append(parts, [2]string{"the url's password", password})
		}
		// Go's client sends the two as a Basic Authorization header, which a
		// server may echo.
		decoded, _ := u.User.Password()
		basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + decoded))
		found.add(secret{name: "the url's user name and password", value: basic, at: at}, false)
	}
	for pair := range strings.SplitSeq(u.RawQuery, "&") {
		key, value, ok := strings.Cut(pair, "=")
		if !ok {
			parts = append(parts, [2]string{"the url's query", pair})
			continue
		}
		name, err := url.QueryUnescape(key)
		if err != nil {
			name = key
		}
		parts = append(parts, [2]string{"the url's " + name, value})
	}
	// Sent to no server, but quoted in Go's errors: an OAuth access token is
	// given there.
	parts = append(parts, [2]string{"the url's fragment", u.EscapedFragment()})
	for _, p := range parts {
		found.add(secret{name: p[0], value: p[1], at: at}, false)
		for _, unescape := range []func(string) (string, error){url.PathUnescape, url.QueryUnescape} {
			if decoded, err := unescape(p[1]); err == nil {
				found.add(secret{name: p[0], value: decoded, at: at}, false)
			}
		}
	}
}

// plainHeaders carry no credential: their values are formats, languages and
// versions, which a server's answer may well repeat.
var plainHeaders = []string{"Accept", "Accept-Encoding", "Accept-Language", "Content-Type", "User-Agent", "Mcp-Protocol-Version"}

// isAuthorization says the header called name carries a scheme and a
// credential, such as "Bearer <token>".
func isAuthorization(name string) bool {
	return strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Proxy-Authorization")
}

// add adds s, and, for a header's value (words), each word of it that is a
// credential alone: the token of a value like "Bearer <token>", which a server
// may echo without the scheme before it. An environment variable's words are
// not: one of several words is an option as often as a credential.
func (ss *secrets) add(s secret, words bool) {
	values := []string{s.value}
	if words {
		values = append(values, credentialWords(s.value)...)
	}
	for _, value := range values {
		if len(value) < MinSecret || slices.ContainsFunc(*ss, func(o secret) bool { return o.value == value }) {
			continue
		}
		*ss = append(*ss, secret{name: s.name, value: value, at: s.at})
	}
	slices.SortStableFunc(*ss, func(a, b secret) int { return len(b.value) - len(a.value) })
}

// credentialWords are the words of a value of more than one, but a first word
// of letters alone: an authentication scheme (Bearer, Basic, Negotiate), which
// names the kind of credential and is none.
func credentialWords(v string) []string {
	words := strings.Fields(v)
	if len(words) < 2 {
		return nil
	}
	if !strings.ContainsFunc(words[0], func(r rune) bool { return !unicode.IsLetter(r) }) {
		words = words[1:]
	}
	return words
}

// redact replaces each secret in text with a placeholder naming it.
func (ss secrets) redact(text string) string {
	for _, s := range ss {
		text = strings.ReplaceAll(text, s.value, "[redacted "+s.name+"]")
		text = strings.ReplaceAll(text, jsonText(s.value), "[redacted "+s.name+"]")
	}
	return text
}

// redactError is err with every secret in its text replaced; it still wraps err,
// for errors.Is and As, whose text a caller must not print.
func (ss secrets) redactError(err error) error {
	if err == nil || len(ss) == 0 {
		return err
	}
	text := ss.redact(err.Error())
	if text == err.Error() {
		return err
	}
	return &redactedError{text: text, err: err}
}

type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// EchoError is a server whose answer holds a secret of its configuration: it
// would be printed or recorded in the snapshot, so nothing is.
type EchoError struct {
	Var, At, Where string
}

func (e *EchoError) Error() string {
	return fmt.Sprintf("the server's answer holds the value of %s, configured at %s, in %s; a secret is never recorded", e.Var, e.At, e.Where)
}

// echoed finds a secret in what the listing would record or print: every tool,
// and every published skill with its SKILL.md. It names where by what the server
// cannot have put the secret in.
func (ss secrets) echoed(l Listing) error {
	for i, t := range l.Tools {
		where := fmt.Sprintf("tool %d of its listing", i+1)
		if ss.find(t.Name) == nil {
			where = fmt.Sprintf("the tool %q", t.Name)
		}
		if s := ss.find(t); s != nil {
			return &EchoError{Var: s.name, At: s.at, Where: where}
		}
	}
	for i, sk := range l.Skills {
		if s := ss.find([]any{sk.URI, sk.Frontmatter, sk.Files, string(sk.Content)}); s != nil {
			return &EchoError{Var: s.name, At: s.at, Where: fmt.Sprintf("published skill %d of its listing", i+1)}
		}
	}
	return nil
}

// find is the first secret in v, as JSON, or in a string of it with its runs
// of white space made one space, as the snapshot writes a title or a
// description (a secret split across lines is whole again there); nil when
// there is none.
func (ss secrets) find(v any) *secret {
	if len(ss) == 0 {
		return nil
	}
	data, _ := json.Marshal(v) // what came as JSON goes back as JSON
	texts := []string{string(data)}
	for _, s := range registry.JSONStrings(data) {
		if folded := strings.Join(strings.Fields(s), " "); folded != s {
			texts = append(texts, folded)
		}
	}
	for i, s := range ss {
		for _, text := range texts {
			if strings.Contains(text, s.value) || strings.Contains(text, jsonText(s.value)) {
				return &ss[i]
			}
		}
	}
	return nil
}

// jsonText is v as it is written inside a JSON string.
func jsonText(v string) string {
	data, _ := json.Marshal(v)
	return string(data[1 : len(data)-1])
}
