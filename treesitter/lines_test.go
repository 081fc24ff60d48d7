package treesitter

import "fmt"

// symLines renders symbols as "kind name startLine-endLine container".
func symLines(f *File) []string {
	var out []string
	for _, s := range f.Symbols {
		out = append(out, fmt.Sprintf("%s %s %d-%d %s", s.Kind, s.Name, s.Span.Start.Line, s.Span.End.Line, s.Container))
	}
	return out
}

// refLines renders references as "kind name line target".
func refLines(f *File) []string {
	var out []string
	for _, r := range f.References {
		out = append(out, fmt.Sprintf("%s %s %d %s", r.Kind, r.Name, r.Span.Start.Line, r.Target))
	}
	return out
}
