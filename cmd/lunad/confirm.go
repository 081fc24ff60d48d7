package main

import (
	"os"

	"github.com/lunad/lunad/agents/policy"
)

// confirmer asks the person at the terminal about the actions the policy
// wants confirmed, for a goal this process drives itself; there is none
// (nil: such actions are denied, the observation says so) when standard
// input or error is not a terminal — and a daemon never has one.
func (m *Main) confirmer() policy.Confirmer {
	in, ok := m.Stdin.(*os.File)
	isTerminal := m.IsTerminal
	if isTerminal == nil {
		isTerminal = isTerminalFile
	}
	if !ok || !isTerminalFd(in.Fd()) || !isTerminal(m.Stderr) {
		return nil
	}
	return policy.NewTerminalConfirmer(m.Stdin, m.Stderr, func() bool { return true })
}
