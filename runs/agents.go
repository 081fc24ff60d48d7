package runs

import (
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/workflow"
)

// agent is the agent of a stage: a built-in one by name, or a process.
// An unknown name is a permanent failure of the stage.
func (e *Engine) agent(st *workflow.Stage) (lunad.Agent, error) {
	if st == nil {
		return nil, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("the workflow has no such stage")}
	}
	if st.Agent != "" {
		a, ok := e.opts.Agents[st.Agent]
		if !ok {
			return nil, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("stage %s names agent %q, which lunad does not have", st.Name, st.Agent)}
		}
		return a, nil
	}
	// One agent per command and timeout, made once: a process agent keeps
	// the hashes of the files its version covers, re-reading one only
	// when it changed.
	key := fmt.Sprintf("%q %v", st.Command, st.Timeout)
	e.agentsMu.Lock()
	defer e.agentsMu.Unlock()
	if a, ok := e.processes[key]; ok {
		return a, nil
	}
	a, err := e.opts.NewProcess(e.opts.Root, st.Command, st.Timeout)
	if err != nil {
		return nil, &lunad.AgentError{Permanent: true, Err: err}
	}
	e.processes[key] = a
	return a, nil
}

// agentVersion is the version of stage's agent, recorded when the stage is
// enqueued ("" for end, or an agent that cannot be made: its attempt
// fails and says why).
func (e *Engine) agentVersion(wf *workflow.Workflow, stage string) string {
	if stage == workflow.End {
		return ""
	}
	if a, err := e.agent(wf.Stages[stage]); err == nil {
		return a.Version()
	}
	return ""
}
