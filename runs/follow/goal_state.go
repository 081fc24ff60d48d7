package follow

import "github.com/lunad/lunad"

// goalStageState is the part of a goal stage's output GoalProgress reads:
// every stage of the goal workflow outputs the goal's state (package
// agents/goal), whose fields below are a contract — the step count and
// limit, the latest steps in full (the last one is the step an act stage
// just took), the latest test result and the step it followed, and the
// plan of a --plan goal.
type goalStageState struct {
	Steps     int                `json:"steps"`
	MaxSteps  int                `json:"max_steps"`
	Recent    []lunad.GoalStep   `json:"recent"`
	Tests     *lunad.TestSummary `json:"tests"`
	TestsStep int                `json:"tests_step"`
	Tested    bool               `json:"tested"`
	Plan      string             `json:"plan"`
	Outcome   string             `json:"outcome"`
}
