// Package calc is a sample package whose tests pass, fail and skip.
package calc

// Add returns a+b.
func Add(a, b int) int { return a + b }

// Sub returns a-b, wrongly.
func Sub(a, b int) int { return a + b }

// Div returns a/b.
func Div(a, b int) int { return a / b }
