package policy

// Message is the decision as the model and the report see it:
//
//	denied by rule no-network: curl reaches the network; ask the user or work offline
//	needs confirmation by rule migrations: schema changes need a person's review
//	allowed by rule go-tools: …
//	allowed
//
// An advisory decision ends with AdvisoryNote in brackets.
func (d Decision) Message() string {
	var head string
	switch d.Verdict {
	case Deny:
		head = "denied"
	case Confirm:
		head = "needs confirmation"
	case Allow:
		head = "allowed"
	default:
		head = "undecided (" + string(d.Verdict) + ")"
	}
	if d.Rule != "" {
		head += " by rule " + d.Rule
	}
	if d.Reason != "" {
		head += ": " + d.Reason
	}
	if d.Advisory {
		head += " [" + AdvisoryNote + "]"
	}
	return head
}
