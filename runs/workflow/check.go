package workflow

import (
	"fmt"
	"strings"

	"github.com/lunad/lunad"
)

// Check validates a workflow file exactly as Parse does, returning nil or
// a *lunad.CheckError with all its problems.
func Check(file string, data []byte) error {
	_, err := Parse(file, data)
	return err
}

// problems collects the problems of one file.
type problems struct {
	file string
	ix   *index
	list []lunad.Problem
}

// at reports a problem at the key path (or its nearest recorded ancestor).
func (ps *problems) at(path []string, format string, args ...any) {
	line, col := ps.ix.at(path...)
	ps.atPos(line, col, format, args...)
}

func (ps *problems) atPos(line, col int, format string, args ...any) {
	ps.list = append(ps.list, lunad.ProblemAt(ps.file, line, col, fmt.Sprintf(format, args...)))
}

func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	return lunad.NewCheckError(ps.list)
}

// checkGraph reports what is wrong with the shape of the state machine:
// stages that start cannot reach, and stages from which no path reaches
// end (a cycle with no exit). Stages with no transitions at all and
// transitions to unknown stages are reported by the caller; here they
// count as reaching end, so that one mistake is reported once.
func checkGraph(w *Workflow, ps *problems) {
	_, startOK := w.Stages[w.Start]
	seen := map[string]bool{}
	if startOK {
		walk(w, w.Start, seen)
		for _, name := range w.Order {
			if !seen[name] && w.Stages[name] != nil {
				ps.at(stagePath(name), "stage %q is unreachable from start %q", name, w.Start)
			}
		}
	}

	// Stages that reach end, found backwards from end.
	ends := map[string]bool{}
	var queue []string
	reach := func(name string) {
		if !ends[name] {
			ends[name] = true
			queue = append(queue, name)
		}
	}
	from := map[string][]string{} // stage → the stages with a transition to it
	for _, name := range w.Order {
		st := w.Stages[name]
		if st == nil {
			continue
		}
		if len(st.Next) == 0 {
			reach(name)
		}
		for _, t := range st.Next {
			if _, known := w.Stages[t.To]; t.To == End || !known {
				reach(name)
			} else {
				from[t.To] = append(from[t.To], name)
			}
		}
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, n := range from[name] {
			reach(n)
		}
	}
	for _, name := range w.Order {
		if ends[name] || w.Stages[name] == nil || startOK && !seen[name] { // unreachable: said above
			continue
		}
		loop := map[string]bool{}
		walk(w, name, loop)
		var among []string
		for _, n := range w.Order {
			if loop[n] {
				among = append(among, n)
			}
		}
		ps.at(stagePath(name), "stage %q can never reach end: its transitions loop among %s with no exit", name, strings.Join(among, ", "))
	}
}

// walk marks every stage reachable from name.
func walk(w *Workflow, name string, seen map[string]bool) {
	st, ok := w.Stages[name]
	if !ok || seen[name] {
		return
	}
	seen[name] = true
	for _, t := range st.Next {
		walk(w, t.To, seen)
	}
}

func stagePath(name string, rest ...string) []string {
	return append([]string{"stages", name}, rest...)
}
