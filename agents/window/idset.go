package window

import "slices"

// idSet is a set of artifact IDs, checked against every artifact of the
// workspace while the index is written: a handful of IDs are compared
// directly, faster than hashing each of 10,000 IDs; more go in a map.
type idSet struct {
	few  []string
	many map[string]bool
}

const fewIDs = 16

func (s *idSet) add(id string) {
	if s.many != nil {
		s.many[id] = true
		return
	}
	if slices.Contains(s.few, id) {
		return
	}
	s.few = append(s.few, id)
	if len(s.few) > fewIDs {
		s.many = make(map[string]bool, 2*len(s.few))
		for _, x := range s.few {
			s.many[x] = true
		}
		s.few = nil
	}
}

func (s *idSet) has(id string) bool {
	if s.many != nil {
		return s.many[id]
	}
	return slices.Contains(s.few, id)
}

func (s *idSet) len() int {
	if s.many != nil {
		return len(s.many)
	}
	return len(s.few)
}
