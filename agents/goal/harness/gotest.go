package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/lunad/lunad"
)

// ParseGoTest reads the stream of `go test -json` (test2json events, one
// JSON object a line) and counts its tests: a test that passed, failed
// or was skipped counts once; a test with subtests counts through its
// subtests (it counts itself only when it failed while none of them
// did, by an assertion or a panic of its own). A package whose test
// binary failed to build (or to set up: a missing package, a vet
// error) is errored, with the build's output as its message; so is a
// package that failed without a failing test (TestMain, init, a crash
// outside any test), and, when the stream ends early, a test that never
// finished (the command was stopped while it ran). Failures holds the
// first MaxFailures failures in the order they ended, each message the
// test's own output without go test's framing lines, a panic's stack
// reduced to its frames outside the runtime and testing, within
// MaxMessageLines and MaxMessageBytes.
//
// Lines that are not events are skipped, as are lines over 1 MiB;
// memory is bounded whatever the input. The error is the reader's only;
// OK and Commands are left for the caller (Run) to fill.
func ParseGoTest(r io.Reader) (lunad.TestSummary, error) {
	p := newGoParser()
	err := p.read(r)
	return p.summary(false), err
}

// maxEventLine bounds one line of the stream; maxTests, maxPackages and
// maxBuilds the running tests, the packages and the builds whose output
// is kept at once (go test runs up to -p packages at once, GOMAXPROCS by
// default, their events interleaved; a package's parallel tests may all
// be running), maxName the names kept.
const (
	maxEventLine = 1 << 20
	maxTests     = 1000
	maxPackages  = 256
	maxBuilds    = 256
	maxName      = 1 << 10
)

// goEvent is one test2json event (cmd/test2json), with the build events
// of Go 1.24 (build-output, build-fail; FailedBuild on a package's fail).
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

type goTestState struct {
	out         capped
	hasChildren bool
	childFailed bool
}

type goPkgState struct {
	out    capped
	failed int // tests of this package counted failed or errored
}

type goParser struct {
	s        lunad.TestSummary
	tests    map[[2]string]*goTestState // package, test → a running test
	packages map[string]*goPkgState
	builds   map[string]*capped // ImportPath → build output
}

func newGoParser() *goParser {
	return &goParser{tests: map[[2]string]*goTestState{}, packages: map[string]*goPkgState{}, builds: map[string]*capped{}}
}

// read feeds every line of r to the parser.
func (p *goParser) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	skipping := false
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !skipping {
				line = append(line, chunk...)
				if len(line) > maxEventLine {
					line, skipping = line[:0], true
				}
			}
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return fmt.Errorf("reading go test's output: %w", err)
		}
		if !skipping {
			if len(line) > 0 {
				line = append(line, chunk...)
				p.line(line)
			} else {
				p.line(chunk)
			}
		}
		line, skipping = line[:0], false
		if err != nil {
			return nil
		}
	}
}

// line takes one line of the stream.
func (p *goParser) line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var e goEvent
	if json.Unmarshal(b, &e) != nil {
		return
	}
	switch {
	case e.Action == "build-output":
		if c := p.builds[e.ImportPath]; c != nil {
			c.add(e.Output)
		} else if len(p.builds) < maxBuilds && len(e.ImportPath) <= maxName {
			c := &capped{}
			c.add(e.Output)
			p.builds[e.ImportPath] = c
		}
	case e.Test != "":
		p.testEvent(e)
	case e.Package != "":
		p.packageEvent(e)
	}
}

func (p *goParser) testEvent(e goEvent) {
	key := [2]string{e.Package, e.Test}
	t := p.tests[key]
	switch e.Action {
	case "run":
		if t == nil && len(p.tests) < maxTests && len(e.Package)+len(e.Test) <= maxName {
			p.tests[key] = &goTestState{}
			if parent := p.parent(e.Package, e.Test); parent != nil {
				parent.hasChildren = true
			}
		}
	case "output":
		if t != nil {
			t.out.add(e.Output)
		}
	case "pass", "skip", "fail":
		delete(p.tests, key)
		if t == nil {
			t = &goTestState{}
		}
		p.ended(e.Package, e.Test, e.Action, t)
	}
}

// parent is the running test that e.Test is a subtest of (its name up to
// a "/"; a subtest's own name may hold "/" too).
func (p *goParser) parent(pkg, name string) *goTestState {
	for i := strings.LastIndexByte(name, '/'); i > 0; i = strings.LastIndexByte(name[:i], '/') {
		if t := p.tests[[2]string{pkg, name[:i]}]; t != nil {
			return t
		}
	}
	return nil
}

// ended counts a test that ended with action (pass, skip, fail).
func (p *goParser) ended(pkg, name, action string, t *goTestState) {
	failed := action == "fail"
	if failed {
		if parent := p.parent(pkg, name); parent != nil {
			parent.childFailed = true
		}
	}
	if t.hasChildren && !(failed && !t.childFailed) {
		return // counted through its subtests
	}
	switch action {
	case "pass":
		p.s.Passed++
	case "skip":
		p.s.Skipped++
	case "fail":
		p.s.Failed++
		p.pkgFailed(pkg)
		p.fail(pkg+"."+name, goMessage(t.out.String()))
	}
}

func (p *goParser) packageEvent(e goEvent) {
	pk := p.pkg(e.Package)
	switch e.Action {
	case "output":
		if pk != nil {
			pk.out.add(e.Output)
		}
	case "pass", "skip", "fail":
		delete(p.packages, e.Package)
		if e.Action != "fail" {
			p.dropTests(e.Package)
			return
		}
		if e.FailedBuild != "" {
			p.s.Errored++
			msg := "build failed"
			if b := p.builds[e.FailedBuild]; b != nil {
				msg += "\n" + buildMessage(b.String())
			}
			p.fail(e.Package, msg)
			p.dropTests(e.Package)
			return
		}
		// Tests still running when their package failed did not finish:
		// the test binary died under them (a panic, a timeout, os.Exit).
		for _, name := range p.running(e.Package) {
			t := p.tests[[2]string{e.Package, name}]
			if !t.hasChildren {
				p.s.Failed++
				p.fail(e.Package+"."+name, goMessage(t.out.String()))
				if pk != nil {
					pk.failed++
				}
			}
		}
		p.dropTests(e.Package)
		if pk == nil || pk.failed > 0 {
			return // a test's failure says why (or the package is past the bound)
		}
		p.s.Errored++
		msg := "the test binary failed outside any test (TestMain, init or a crash)"
		if text := goMessage(pk.out.String()); text != "" {
			msg += "\n" + text
		}
		p.fail(e.Package, msg)
	}
}

// running lists a package's running tests, sorted.
func (p *goParser) running(pkg string) []string {
	var names []string
	for k := range p.tests {
		if k[0] == pkg {
			names = append(names, k[1])
		}
	}
	sort.Strings(names)
	return names
}

func (p *goParser) dropTests(pkg string) {
	for k := range p.tests {
		if k[0] == pkg {
			delete(p.tests, k)
		}
	}
}

// pkg is a package's state, made at its first event (nil past the
// bound).
func (p *goParser) pkg(name string) *goPkgState {
	pk := p.packages[name]
	if pk == nil && len(p.packages) < maxPackages && len(name) <= maxName {
		pk = &goPkgState{}
		p.packages[name] = pk
	}
	return pk
}

func (p *goParser) pkgFailed(name string) {
	if pk := p.pkg(name); pk != nil {
		pk.failed++
	}
}

func (p *goParser) fail(name, message string) {
	if len(p.s.Failures) < MaxFailures {
		p.s.Failures = append(p.s.Failures, lunad.TestFailure{Name: truncName(validUTF8(name)), Message: message})
	}
}

// summary ends the stream: tests still running did not finish (unless
// the stream was cut in the middle, when their end may be in the part
// left out).
func (p *goParser) summary(cut bool) lunad.TestSummary {
	if !cut {
		keys := make([][2]string, 0, len(p.tests))
		for k, t := range p.tests {
			if !t.hasChildren {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i][0] != keys[j][0] {
				return keys[i][0] < keys[j][0]
			}
			return keys[i][1] < keys[j][1]
		})
		for _, k := range keys {
			p.s.Errored++
			msg := "did not finish: the output ended while it ran (the command was stopped)"
			if text := goMessage(p.tests[k].out.String()); text != "" {
				msg += "\n" + text
			}
			p.fail(k[0]+"."+k[1], msg)
		}
	}
	return p.s
}

// goMessage is a test's output without go test's framing, a panic's
// stack reduced to the frames outside the runtime and testing, dedented
// and bounded.
func goMessage(out string) string {
	var kept []string
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "=== RUN"), strings.HasPrefix(t, "=== PAUSE"), strings.HasPrefix(t, "=== CONT"), strings.HasPrefix(t, "=== NAME"),
			strings.HasPrefix(t, "--- FAIL:"), strings.HasPrefix(t, "--- PASS:"), strings.HasPrefix(t, "--- SKIP:"),
			t == "FAIL", t == "PASS", strings.HasPrefix(t, "FAIL\t"), strings.HasPrefix(t, "ok  \t"):
		case strings.HasPrefix(t, "goroutine ") && strings.HasSuffix(t, "]:"):
			// A stack: function lines each followed by a tab-indented
			// file:line; keep the frames of the code under test, without
			// their arguments (addresses).
			if n := len(kept); n > 0 && strings.TrimSpace(kept[n-1]) == "" {
				kept = kept[:n-1]
			}
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				fn := lines[i+1]
				file := ""
				if i+2 < len(lines) && strings.HasPrefix(lines[i+2], "\t") {
					file = lines[i+2]
					i++
				}
				i++
				if !runtimeFrame(fn) {
					if at := strings.LastIndexByte(fn, '('); at > 0 {
						fn = fn[:at]
					}
					kept = append(kept, fn)
					if file = strings.TrimSpace(file); file != "" {
						if at := strings.LastIndex(file, " +0x"); at > 0 {
							file = file[:at]
						}
						kept = append(kept, "  "+file)
					}
				}
			}
		default:
			kept = append(kept, l)
		}
	}
	return headLines(strings.Join(dedent(kept), "\n"))
}

// runtimeFrame reports whether a stack line is the runtime's or the
// testing package's own.
func runtimeFrame(fn string) bool {
	for _, p := range []string{"runtime.", "testing.", "panic(", "created by testing.", "created by runtime."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// buildMessage is a build's output without the "# package" headers.
func buildMessage(out string) string {
	var kept []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "# ") {
			kept = append(kept, l)
		}
	}
	return headLines(strings.Join(kept, "\n"))
}
