package refindex

import (
	"container/list"

	"github.com/lunad/lunad/treesitter"
)

// docCache keeps the syntax trees of the most recently updated artifacts
// so that their next update is an incremental re-parse. Trees are large
// (several times the source), so only a bounded number are kept.
type docCache struct {
	max   int
	order *list.List // of *openDoc, most recent first
	byID  map[string]*list.Element
}

type openDoc struct {
	id, typ string
	doc     *treesitter.Doc
}

func newDocCache(max int) *docCache {
	return &docCache{max: max, order: list.New(), byID: map[string]*list.Element{}}
}

// update re-parses s with its kept tree, or opens a new one.
func (c *docCache) update(p *treesitter.Parser, s Source) (*treesitter.File, error) {
	if el := c.byID[s.ID]; el != nil {
		od := el.Value.(*openDoc)
		if od.typ == s.Type {
			c.order.MoveToFront(el)
			return od.doc.Update(s.Content)
		}
		c.drop(s.ID)
	}
	d, err := p.Open(s.Type, s.Content)
	if err != nil {
		return nil, err
	}
	c.byID[s.ID] = c.order.PushFront(&openDoc{id: s.ID, typ: s.Type, doc: d})
	for c.order.Len() > c.max {
		c.drop(c.order.Back().Value.(*openDoc).id)
	}
	return d.File(), nil
}

func (c *docCache) drop(id string) {
	if el := c.byID[id]; el != nil {
		el.Value.(*openDoc).doc.Close()
		c.order.Remove(el)
		delete(c.byID, id)
	}
}

func (c *docCache) clear() {
	for id := range c.byID {
		c.drop(id)
	}
}
