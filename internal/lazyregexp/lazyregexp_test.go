package lazyregexp

import "testing"

func TestNewCompilesOnFirstUse(t *testing.T) {
	bad := New(`(`) // not compiled yet: no panic here
	re := New(`^a+$`)
	if first, again := re(), re(); first != again {
		t.Errorf("two calls compiled twice: %p, %p", first, again)
	}
	if !re().MatchString("aaa") || re().MatchString("ab") {
		t.Errorf("%v matches wrongly", re())
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad expression compiled without a panic")
		}
	}()
	bad()
}
