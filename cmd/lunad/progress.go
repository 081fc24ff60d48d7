package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lunad/lunad"
)

// barEvery paces a progress bar: at most ten frames a second.
const barEvery = 100 * time.Millisecond

// barWidth is the number of cells of a progress bar.
const barWidth = 30

// progressBar draws a long job's progress as one line on stderr — "LABEL
// [#####-----] DONE/TOTAL" — redrawn in place at most every barEvery, and
// cleared at the end so that only the command's output remains. A nil
// *progressBar draws nothing.
type progressBar struct {
	w     io.Writer
	label string
	now   func() time.Time
	last  time.Time
	drawn bool
}

// progressBar returns a bar labelled label when stderr is a terminal and
// the output is not --json; nil (no bar) otherwise.
func (m *Main) progressBar(label string) *progressBar {
	isTerminal := m.IsTerminal
	if isTerminal == nil {
		isTerminal = isTerminalFile
	}
	if m.json || !isTerminal(m.Stderr) {
		return nil
	}
	now := m.Now
	if now == nil {
		now = time.Now
	}
	return &progressBar{w: m.Stderr, label: label, now: now}
}

// report is the bar as a progress callback (refindex.Progress,
// gitstore.Options.AdoptProgress), or nil when there is no bar.
func (b *progressBar) report() func(done, total int) {
	if b == nil {
		return nil
	}
	return b.draw
}

// draw shows done of total: the first and the last frame always, others
// when barEvery has passed since the last one drawn.
func (b *progressBar) draw(done, total int) {
	t := b.now()
	if b.drawn && done < total && t.Sub(b.last) < barEvery {
		return
	}
	b.last, b.drawn = t, true
	fill := 0
	if total > 0 {
		fill = barWidth * min(done, total) / total
	}
	fmt.Fprintf(b.w, "\r\x1b[K%s [%s%s] %d/%d", b.label, strings.Repeat("#", fill), strings.Repeat("-", barWidth-fill), done, total)
}

// clear erases the bar's line, if it drew one.
func (b *progressBar) clear() {
	if b != nil && b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
		b.drawn = false
	}
}

// isTerminalFile reports whether w is a terminal device.
func isTerminalFile(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminalFd(f.Fd())
}

// awaitIndex waits for ws's reference index with a bar on a terminal,
// before a command that reads the index: the first such command after a
// daemon started (or in-process) builds it, which takes seconds on a large
// repository. Without a bar it does nothing: the command's own call builds
// the index, silently.
func (m *Main) awaitIndex(ctx context.Context, ws lunad.Workspace) error {
	bar := m.progressBar("indexing references")
	if bar == nil {
		return nil
	}
	defer bar.clear()
	return ws.IndexReferences(ctx, bar.report())
}
