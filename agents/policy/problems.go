package policy

import (
	"fmt"

	"github.com/lunad/lunad"
)

// report collects the problems of one file, placed by its locator.
type report struct {
	file string
	loc  *locator
	list []lunad.Problem
}

// at reports a problem at a key path (or its nearest located ancestor).
func (r *report) at(path keyPath, format string, args ...any) {
	line, col := r.loc.at(path)
	r.atPos(line, col, format, args...)
}

func (r *report) atPos(line, col int, format string, args ...any) {
	r.list = append(r.list, lunad.ProblemAt(r.file, line, col, fmt.Sprintf(format, args...)))
}

func (r *report) err() error {
	if len(r.list) == 0 {
		return nil
	}
	return lunad.NewCheckError(r.list)
}
