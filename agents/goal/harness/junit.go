package harness

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/lazyregexp"
)

// ParseJUnit reads a JUnit XML report (pytest's --junitxml; a
// <testsuites> or <testsuite> root, <testcase> elements anywhere below)
// and counts its test cases: a case with a <failure> is failed, with an
// <error> errored (pytest writes both on a case that failed and then
// errored in teardown; it counts as both, as pytest counts it), with
// only <skipped> skipped, with none of them passed (a second <failure>
// or <error> of a case adds nothing; a case cut off by the report's end
// counts what it showed). Failures holds the
// first MaxFailures failed or errored cases, named classname.name (name
// alone for pytest's collection errors, whose classname is empty), each
// message the element's message attribute, the explanation lines of
// pytest's traceback ("E   …") it does not already say, and the
// failing line ("test_calc.py:16: AssertionError"), within
// MaxMessageLines and MaxMessageBytes.
//
// A report that is not well-formed XML, or whose root is another
// element, is an error wrapping lunad.ErrInvalid; the summary then holds
// what was read before the fault. OK and Commands are left for the
// caller (Run) to fill.
func ParseJUnit(data []byte) (lunad.TestSummary, error) {
	var s lunad.TestSummary
	d := xml.NewDecoder(bytes.NewReader(data))
	var (
		depth   int
		rooted  bool
		inCase  bool
		caseOf  string
		failed  bool
		errored bool
		skipped bool
		// the <failure> or <error> being read, and its text
		inFault bool
		keep    bool
		faultAt int
		text    capped
		message string
	)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if !rooted {
				return s, fmt.Errorf("%w: the JUnit report is empty: the test runner wrote no <testsuites> or <testsuite> element", lunad.ErrInvalid)
			}
			return s, nil
		}
		if err != nil {
			line, _ := d.InputPos()
			return s, fmt.Errorf("%w: the JUnit report is not well-formed XML at line %d: %v", lunad.ErrInvalid, line, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				if t.Name.Local != "testsuites" && t.Name.Local != "testsuite" {
					return s, fmt.Errorf("%w: the JUnit report's root is <%s>, not <testsuites> or <testsuite>", lunad.ErrInvalid, truncName(t.Name.Local))
				}
				rooted = true
			}
			switch {
			case t.Name.Local == "testcase" && !inCase:
				inCase, failed, errored, skipped = true, false, false, false
				caseOf = caseName(attr(t, "classname"), attr(t, "name"))
			case inCase && !inFault && (t.Name.Local == "failure" || t.Name.Local == "error"):
				inFault, faultAt, text, message, keep = true, depth, capped{}, attr(t, "message"), false
				// Counted as met, so a report cut inside the case
				// counts the failure it keeps; a second <failure> (or
				// <error>) of the case is neither counted nor kept.
				switch {
				case t.Name.Local == "failure" && !failed:
					failed, keep = true, true
					s.Failed++
				case t.Name.Local == "error" && !errored:
					errored, keep = true, true
					s.Errored++
				}
			case inCase && t.Name.Local == "skipped":
				skipped = true
			}
		case xml.CharData:
			if inFault {
				text.add(string(t))
			}
		case xml.EndElement:
			if inFault && depth == faultAt {
				inFault = false
				if keep && len(s.Failures) < MaxFailures {
					s.Failures = append(s.Failures, lunad.TestFailure{Name: caseOf, Message: junitMessage(message, text.String())})
				}
			}
			if inCase && t.Name.Local == "testcase" {
				inCase = false
				switch {
				case failed || errored:
				case skipped:
					s.Skipped++
				default:
					s.Passed++
				}
			}
			depth--
		}
	}
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func caseName(class, name string) string {
	n := name
	if class != "" {
		n = class + "." + name
	}
	return truncName(validUTF8(n))
}

// location is pytest's last traceback line: the failing line and the
// exception ("test_calc.py:16: AssertionError").
var location = lazyregexp.New(`^\S+:\d+: \S+$`)

// junitMessage is the message attribute, the explanation lines (E …) of
// the traceback it does not already hold, and the failing line; the
// text's head when there is neither.
func junitMessage(message, text string) string {
	var explain []string
	lines := strings.Split(strings.TrimRight(text, " \t\r\n"), "\n")
	for _, l := range lines {
		if l == "E" || strings.HasPrefix(l, "E ") {
			explain = append(explain, strings.TrimPrefix(l, "E"))
		}
	}
	var out []string
	if m := strings.TrimSpace(message); m != "" {
		out = append(out, m)
	}
	for _, l := range dedent(explain) {
		if t := strings.TrimSpace(l); t != "" && strings.Contains(message, t) {
			continue
		}
		out = append(out, l)
	}
	if last := strings.TrimSpace(lines[len(lines)-1]); location().MatchString(last) {
		out = append(out, last)
	}
	if len(out) == 0 {
		return headLines(text)
	}
	return headLines(strings.Join(out, "\n"))
}
