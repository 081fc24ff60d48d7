// Package crash has a test that panics.
package crash

// Store writes into a map it never made.
func Store(k string, v int) {
	var m map[string]int
	m[k] = v
}
