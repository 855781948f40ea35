package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

const syntaxHint = "fix the syntax; nothing is written until the file parses"

// mark is a place in a file, 1-based, its column counted in characters as yaml.v3
// and editors count them.
type mark struct{ line, column int }

// parserStop is what yaml.v3's parser knew when it stopped: the problem and the
// token it stopped at, and the construct it was in and where that began.
type parserStop struct {
	problem, context string
	at, opened       mark
}

// readStop reads the parser's own record of its last error from the decoder. The
// error's text gives one line only, and for most parser errors the 0-based line
// where the enclosing mapping or collection began; the record, unexported, has the
// token. It is read through reflect, never written; a yaml.v3 laid out otherwise
// gives false (TestParserStopIsReadable fails first), and the text's line is used.
func readStop(dec *yaml.Decoder, err error) (stop parserStop, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p := reflect.ValueOf(dec).Elem().FieldByName("parser")
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return stop, false
	}
	p = p.Elem().FieldByName("parser")
	markOf := func(name string) mark {
		m := p.FieldByName(name)
		return mark{line: int(m.FieldByName("line").Int()) + 1, column: int(m.FieldByName("column").Int()) + 1}
	}
	stop = parserStop{problem: p.FieldByName("problem").String(), context: p.FieldByName("context").String(),
		at: markOf("problem_mark"), opened: markOf("context_mark")}
	// An error the decoder raises itself (an unknown anchor) leaves no record.
	return stop, stop.problem != "" && strings.HasSuffix(err.Error(), stop.problem)
}

// syntaxProblem turns a yaml.v3 error into a problem at the token the parser
// stopped at, with that line of the file and a caret under it.
func syntaxProblem(file string, data []byte, dec *yaml.Decoder, err error) Problem {
	stop, ok := readStop(dec, err)
	if !ok {
		line, msg := splitYAMLError(err)
		return Problem{Pos: Position{File: file, Line: line}, Message: "cannot parse YAML: " + msg, Hint: syntaxHint}
	}
	at, msg, hint, shown := stop.at, stop.problem, syntaxHint, []mark{stop.at}
	quoted := stop.context == "while scanning a quoted scalar"
	brackets := map[string]string{"while parsing a flow mapping": "{}", "while parsing a flow sequence": "[]"}[stop.context]
	atEnd := len(bytes.TrimSpace(data[offset(data, stop.at):])) == 0
	switch {
	case tabIndented(data, stop.at):
		msg = fmt.Sprintf("line %d is indented with a tab; YAML allows only spaces", at.line)
		hint = "indent with spaces; nothing is written until the file parses"
	case stop.problem == "mapping values are not allowed in this context":
		hint = `quote a value that holds ": ", and indent a key as far as the keys beside it; nothing is written until the file parses`
	case quoted && (atEnd || stop.problem == "found unexpected document indicator"):
		// The quote is the mistake; where the parser gave up is only where the next
		// document or the file begins or ends.
		at, shown = stop.opened, []mark{stop.opened}
		msg = "the quoted string that starts here is not closed before the end of the file"
		if !atEnd {
			msg = fmt.Sprintf("the quoted string that starts here is not closed before the document marker on line %d", stop.at.line)
		}
		hint = "end it with the quote it starts with; nothing is written until the file parses"
	case brackets != "" && atEnd:
		at, shown = stop.opened, []mark{stop.opened}
		msg = fmt.Sprintf("the %c that opens here is not closed before the end of the file", brackets[0])
	case brackets != "" && stop.opened.line != stop.at.line && closesOnItsLine(data, stop, brackets[1]):
		at, shown = stop.opened, []mark{stop.opened}
		msg = fmt.Sprintf("the %c that opens here is not closed on its line", brackets[0])
		hint = fmt.Sprintf("end the line with %c; nothing is written until the file parses", brackets[1])
	case brackets != "" && stop.opened.line != stop.at.line:
		// A comma missing at the end of a line, most likely: both lines are shown.
		msg += fmt.Sprintf(" inside the %c opened at line %d, column %d", brackets[0], stop.opened.line, stop.opened.column)
		shown = []mark{stop.opened, stop.at}
	}
	return Problem{Pos: Position{File: file, Line: at.line, Column: at.column}, Message: "cannot parse YAML: " + msg, Hint: hint,
		Snippet: snippet(data, shown...)}
}

// closesOnItsLine tells whether the parser gets past the line it stopped on once
// the line the flow collection opens on ends with closer: then that is what is
// missing, rather than a comma before the token it stopped at. The parser
// decides, on the file so mended, not a guess at what the writer meant.
func closesOnItsLine(data []byte, stop parserStop, closer byte) bool {
	eol := offset(data, mark{stop.opened.line, math.MaxInt})
	if eol > 0 && data[eol-1] == '\r' {
		eol--
	}
	dec := yaml.NewDecoder(bytes.NewReader(slices.Concat(data[:eol], []byte{closer}, data[eol:])))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			again, ok := readStop(dec, err)
			return ok && again.at.line > stop.at.line
		}
	}
}

// splitYAMLError splits yaml.v3's "yaml: line N: message". N is the line where the
// enclosing construct began, 0-based for parser errors: it is used only where the
// parser left no record of its own.
func splitYAMLError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return 0, msg
	}
	n, tail, ok := strings.Cut(rest, ": ")
	line, convErr := strconv.Atoi(n)
	if !ok || convErr != nil {
		return 0, msg
	}
	return line, tail
}

// tabIndented tells whether the parser stopped at a tab in the indentation of its
// line: whatever yaml.v3 calls it, a tab there is the mistake.
func tabIndented(data []byte, at mark) bool {
	text, ok := lineText(data, at.line)
	if !ok {
		return false
	}
	runes := []rune(text)
	if at.column > len(runes) || runes[at.column-1] != '\t' {
		return false
	}
	return strings.Trim(string(runes[:at.column-1]), " \t") == ""
}

// lineText is line n of data (1-based) without its line break, and without the
// byte order mark before line 1, which yaml.v3 does not count as a column.
func lineText(data []byte, n int) (string, bool) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	for i := 1; i < n; i++ {
		_, rest, found := bytes.Cut(data, []byte("\n"))
		if !found {
			return "", false
		}
		data = rest
	}
	if len(data) == 0 && n > 1 {
		return "", false // the end of a file that ends with a line break
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return strings.TrimSuffix(string(line), "\r"), true
}

// offset is the byte offset of m in data; len(data) when m is past the end.
func offset(data []byte, m mark) int {
	start := 0
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		start = 3
	}
	for i := 1; i < m.line; i++ {
		nl := bytes.IndexByte(data[start:], '\n')
		if nl < 0 {
			return len(data)
		}
		start += nl + 1
	}
	line := data[start:]
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	runes := 0
	for i := range string(line) {
		if runes == m.column-1 {
			return start + i
		}
		runes++
	}
	return start + len(line)
}

// snippetWidth bounds the characters of a line a snippet shows: a registry can be
// one line of JSON megabytes long.
const snippetWidth = 100

// snippet shows the lines of marks, each with a caret under its column:
//
//	6 |   title: Do: the thing
//	  |            ^
func snippet(data []byte, marks ...mark) string {
	width := len(strconv.Itoa(marks[len(marks)-1].line))
	var b strings.Builder
	for _, m := range marks {
		text, ok := lineText(data, m.line)
		if !ok {
			continue
		}
		runes, col := []rune(text), m.column-1
		if len(runes) > snippetWidth {
			start := max(0, min(col-snippetWidth/2, len(runes)-snippetWidth))
			window := string(runes[start : start+snippetWidth])
			if start > 0 {
				window, col = "…"+window, col-start+1
			}
			if start+snippetWidth < len(runes) {
				window += "…"
			}
			runes = []rune(window)
		}
		// The caret line repeats the tabs before the column, so it lines up however
		// wide the terminal shows a tab.
		pad := make([]rune, 0, col)
		for i := 0; i < col; i++ {
			if i < len(runes) && runes[i] == '\t' {
				pad = append(pad, '\t')
			} else {
				pad = append(pad, ' ')
			}
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%*d | %s\n%*s | %s^", width, m.line, string(runes), width, "", string(pad))
	}
	return b.String()
}
