// Package broken does not compile.
package broken

// Answer returns an undefined name.
func Answer() int { return answer }
