package crash

import "testing"

func TestStore(t *testing.T) {
	Store("a", 1)
}
