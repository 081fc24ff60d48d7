package worker

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/lunad/lunad"
)

//go:embed prompts/*.md
var files embed.FS

// Prompt is one role's embedded prompt file.
type Prompt struct {
	Name    string // the role
	Version string
	Text    string // the system prompt: the file after its version line
}

// ID is the prompt's name@version (the Luna-Prompt trailer).
func (p Prompt) ID() string { return p.Name + "@" + p.Version }

var versionLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z]+)@([0-9A-Za-z.\-]+)$`) })

// PromptFor is role's prompt; ErrInvalid for an unknown role.
func PromptFor(role string) (Prompt, error) {
	b, err := files.ReadFile("prompts/" + role + ".md")
	if err != nil {
		return Prompt{}, fmt.Errorf("%w: no prompt for worker role %q (the roles are coder, writer, reviewer)", lunad.ErrInvalid, role)
	}
	return parsePrompt(role, string(b))
}

func parsePrompt(role, text string) (Prompt, error) {
	first, rest, _ := strings.Cut(text, "\n")
	m := versionLine().FindStringSubmatch(strings.TrimSpace(first))
	if m == nil || m[1] != role {
		return Prompt{}, fmt.Errorf("%w: prompt %s.md must start with the line %s@VERSION, not %q", lunad.ErrInvalid, role, role, first)
	}
	return Prompt{Name: role, Version: m[2], Text: strings.TrimSpace(rest) + "\n"}, nil
}
