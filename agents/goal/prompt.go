package goal

import (
	_ "embed"
	"strings"
)

//go:embed prompts/goal.md
var promptFile string

// Prompt is the goal's system prompt: its id (name@version, the
// Luna-Prompt trailer of every commit of a goal) and its text.
func Prompt() (id, text string) {
	first, rest, _ := strings.Cut(promptFile, "\n")
	return strings.TrimSpace(first), strings.TrimSpace(rest) + "\n"
}
