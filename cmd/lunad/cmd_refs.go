package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/lunad/lunad"
)

var cmdSymbols = &command{
	name:    "symbols",
	args:    "ID",
	summary: "list the definitions in an artifact, with line ranges",
	help: `
Lines are 1-based and inclusive. With --json, prints the symbols with byte
offsets, 0-based lines and byte columns, and fingerprints.`,
	minArgs: 1, maxArgs: 1,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		return fs.withIndex(ctx, args, func(svc lunad.Workspace, pos []string) error {
			_, syms, err := svc.Symbols(ctx, pos[0])
			if err != nil {
				return err
			}
			return printList(m, syms, []string{"LINES", "KIND", "NAME", "CONTAINER", "FINGERPRINT"}, func(s lunad.Symbol) []string {
				return []string{lineRange(s.Span), s.Kind, s.Name, s.Container, s.Fingerprint}
			})
		})
	},
}

// lineRange prints a span as 1-based inclusive lines "3-7" (a span
// ending at the start of a line does not include it).
func lineRange(s lunad.Span) string {
	end := s.End.Line
	if s.End.Column == 0 && end > s.Start.Line {
		end--
	}
	if end == s.Start.Line {
		return strconv.Itoa(s.Start.Line + 1)
	}
	return fmt.Sprintf("%d-%d", s.Start.Line+1, end+1)
}

var cmdRefs = &command{
	name:    "refs",
	args:    "ID",
	summary: "list an artifact's outgoing and incoming references, resolved, with their state",
	help: `
STATE is ok, stale, broken, ambiguous or unverified (a link only a
documentation site generator resolves, such as page.html for page.md;
docs/references.md). References to
names defined nowhere in the workspace (libraries, builtins) and inside the
artifact itself are not listed. With --json, prints {"artifact", "outgoing",
"incoming"}.`,
	minArgs: 1, maxArgs: 1,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		return fs.withIndex(ctx, args, func(svc lunad.Workspace, pos []string) error {
			rep, err := svc.Refs(ctx, pos[0])
			if err != nil {
				return err
			}
			if m.json {
				return m.printJSON(rep)
			}
			t := newTable(m.Stdout, "DIR", "LINE", "FROM", "KIND", "TEXT", "TO", "STATE", "REASON")
			for _, dir := range []struct {
				name string
				refs []lunad.Reference
			}{{"out", rep.Outgoing}, {"in", rep.Incoming}} {
				for _, r := range dir.refs {
					t.row(dir.name, refLine(r), r.From.Path, r.Kind, r.Text, target(r), string(r.State), r.Reason)
				}
			}
			return t.flush()
		})
	},
}

var cmdStale = &command{
	name:    "stale",
	args:    "[--check]",
	summary: "list every stale or broken reference: from, to, symbol, since which commit, who changed it",
	help: `
With --check, exits with code 6 when there is any (for scripts and CI).
With --json, prints an array of references.`,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		check := fs.Bool("check", false, "exit 6 if any reference is stale or broken")
		return fs.withWorkspace(ctx, args, func(svc lunad.Workspace, pos []string) error {
			refs, err := staleRefs(ctx, m, svc)
			if err != nil {
				return err
			}
			err = printList(m, refs, []string{"FROM", "LINE", "KIND", "TO", "SYMBOL", "STATE", "SINCE", "BY", "REASON"}, func(r lunad.Reference) []string {
				since, by := "", ""
				if r.Since != nil {
					since, by = short(r.Since.Commit), r.Since.Agent
				}
				to, sym := "", r.Text
				if r.To != nil {
					to = r.To.Path
					if r.To.Symbol != "" {
						sym = r.To.Symbol
					}
				}
				return []string{r.From.Path, refLine(r), r.Kind, to, sym, string(r.State), since, by, r.Reason}
			})
			if err == nil && *check && len(refs) > 0 {
				return &staleError{n: len(refs)}
			}
			return err
		})
	},
}

// savedStaler is a workspace opened in-process, which may hold the
// answer a former process saved for the current state.
type savedStaler interface {
	SavedStale() ([]lunad.Reference, bool)
}

// staleRefs is ws.Stale, waiting for the index with a bar on a terminal
// (as withIndex does) only when no saved answer is current.
func staleRefs(ctx context.Context, m *Main, ws lunad.Workspace) ([]lunad.Reference, error) {
	if s, ok := ws.(savedStaler); ok {
		if refs, ok := s.SavedStale(); ok {
			return refs, nil
		}
	}
	if err := m.awaitIndex(ctx, ws); err != nil {
		return nil, err
	}
	return ws.Stale(ctx)
}

// staleError is the result of `stale --check` when references are stale.
type staleError struct{ n int }

func (e *staleError) Error() string {
	return fmt.Sprintf("%d stale or broken references: review them, then edit or `lunad ack ID`", e.n)
}

var cmdAck = &command{
	name:    "ack",
	args:    "ID [--symbol S]",
	summary: "acknowledge an artifact's references as still right, without editing it",
	help: `
Records a commit with the trailer Luna-Op: ack (and Luna-Symbol: S with
--symbol), which becomes the baseline its references are compared against:
stale references of ID (or only those to S) become ok. Prints ID vVERSION COMMIT.`,
	minArgs: 1, maxArgs: 1,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		symbol := fs.String("symbol", "", "acknowledge only the references to `symbol`")
		return fs.write(ctx, args, func(svc lunad.Workspace, pos []string, ch lunad.Change) (lunad.Result, error) {
			return svc.Ack(ctx, lunad.AckRequest{Ref: pos[0], Symbol: *symbol, Change: ch})
		})
	},
}

func refLine(r lunad.Reference) string {
	if r.From.Span == nil {
		return "-"
	}
	return strconv.Itoa(r.From.Span.Start.Line + 1)
}

// target prints where a reference points: path#symbol, path#Lnn, or the
// candidates of an ambiguous one.
func target(r lunad.Reference) string {
	if r.State == lunad.RefAmbiguous {
		s := ""
		for i, c := range r.Candidates {
			if i > 0 {
				s += ","
			}
			s += c.Path
		}
		return s
	}
	if r.To == nil {
		return "-"
	}
	s := r.To.Path
	switch {
	case r.To.Symbol != "" && r.To.Container != "":
		s += "#" + r.To.Container + "." + r.To.Symbol
	case r.To.Symbol != "":
		s += "#" + r.To.Symbol
	case r.To.Line > 0:
		s += "#L" + strconv.Itoa(r.To.Line)
	}
	return s
}
