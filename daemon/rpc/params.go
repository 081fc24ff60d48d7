package rpc

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/lunad/lunad"
)

// text is a string sent losslessly: as a JSON string when it is valid
// UTF-8, else as {"base64": "..."} (encoding/json would replace invalid
// bytes, and an edit or a name must reach the store byte for byte).
type text string

func (t text) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(t)) {
		return json.Marshal(string(t))
	}
	return json.Marshal(struct {
		B []byte `json:"base64"`
	}{[]byte(t)})
}

func (t *text) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		var v struct {
			B []byte `json:"base64"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*t = text(v.B)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = text(s)
	return nil
}

// Params and results of the calls.
type (
	noParams  struct{}
	refParams struct {
		Ref text `json:"ref"`
	}
	readParams struct {
		Ref text `json:"ref"`
		At  text `json:"at,omitempty"`
	}
	readResult struct {
		Content  []byte         `json:"content"`
		Artifact lunad.Artifact `json:"artifact"`
	}
	diffParams struct {
		ID   text `json:"id"`
		From int  `json:"from,omitempty"`
		To   int  `json:"to,omitempty"`
	}
	extraField struct {
		Key   text `json:"key"`
		Value text `json:"value"`
	}
	changeParams struct {
		Agent          text         `json:"agent,omitempty"`
		Message        text         `json:"message,omitempty"`
		IdempotencyKey text         `json:"idempotency_key,omitempty"`
		BaseVersion    int          `json:"base_version,omitempty"`
		Extra          []extraField `json:"extra,omitempty"`
	}
	createParams struct {
		Title   text         `json:"title"`
		Type    text         `json:"type,omitempty"`
		Path    text         `json:"path,omitempty"`
		Status  text         `json:"status,omitempty"`
		Content []byte       `json:"content"`
		Change  changeParams `json:"change"`
	}
	blockParams struct {
		Path    text `json:"path,omitempty"`
		Search  text `json:"search"`
		Replace text `json:"replace"`
	}
	editParams struct {
		ID         text          `json:"id"`
		Blocks     []blockParams `json:"blocks,omitempty"`
		BlocksText text          `json:"blocks_text,omitempty"`
		Patch      text          `json:"patch,omitempty"`
		Content    []byte        `json:"content"`
		Rewrite    bool          `json:"rewrite,omitempty"`
		Change     changeParams  `json:"change"`
	}
	writeParams struct { // undo, redo, archive
		Ref    text         `json:"ref"`
		Change changeParams `json:"change"`
	}
	restoreParams struct {
		Ref     text         `json:"ref"`
		Version int          `json:"version"`
		Change  changeParams `json:"change"`
	}
	moveParams struct {
		Ref    text         `json:"ref"`
		Path   text         `json:"path"`
		Change changeParams `json:"change"`
	}
	linkParams struct {
		Src    text         `json:"src"`
		Dst    text         `json:"dst"`
		Kind   text         `json:"kind,omitempty"`
		Change changeParams `json:"change"`
	}
	ackParams struct {
		Ref    text         `json:"ref"`
		Symbol text         `json:"symbol,omitempty"`
		Change changeParams `json:"change"`
	}
	branchParams struct {
		Name text `json:"name"`
		From text `json:"from,omitempty"`
	}
	symbolsResult struct {
		Artifact lunad.Artifact `json:"artifact"`
		Symbols  []lunad.Symbol `json:"symbols"`
	}
	atParams struct {
		Ref    text `json:"ref"`
		Offset int  `json:"offset"`
	}
	searchParams struct {
		Query text `json:"query"`
		Limit int  `json:"limit"`
	}
	subscribeResult struct {
		Subscription int64 `json:"subscription"`
	}
	eventParams struct {
		Subscription int64       `json:"subscription"`
		Event        lunad.Event `json:"event"`
	}
)

// The idempotency keys of the writes' parameters (call retries a
// keyed write on a restored connection).
func (p createParams) key() string  { return string(p.Change.IdempotencyKey) }
func (p editParams) key() string    { return string(p.Change.IdempotencyKey) }
func (p writeParams) key() string   { return string(p.Change.IdempotencyKey) }
func (p restoreParams) key() string { return string(p.Change.IdempotencyKey) }
func (p moveParams) key() string    { return string(p.Change.IdempotencyKey) }
func (p linkParams) key() string    { return string(p.Change.IdempotencyKey) }
func (p ackParams) key() string     { return string(p.Change.IdempotencyKey) }

func toChange(p changeParams) lunad.Change {
	ch := lunad.Change{Agent: string(p.Agent), Message: string(p.Message), IdempotencyKey: string(p.IdempotencyKey), BaseVersion: p.BaseVersion}
	if p.Extra != nil {
		ch.Extra = make(map[string]string, len(p.Extra))
		for _, f := range p.Extra {
			ch.Extra[string(f.Key)] = string(f.Value)
		}
	}
	return ch
}

func fromChange(ch lunad.Change) changeParams {
	p := changeParams{Agent: text(ch.Agent), Message: text(ch.Message), IdempotencyKey: text(ch.IdempotencyKey), BaseVersion: ch.BaseVersion}
	if ch.Extra != nil {
		p.Extra = []extraField{}
		for k, v := range ch.Extra {
			p.Extra = append(p.Extra, extraField{text(k), text(v)})
		}
	}
	return p
}

// The requests of the writes on the wire: each lunad request struct has
// its params, which mirror it field by field with its strings as text
// (byte for byte, see text) and its Change as changeParams. The client
// makes the params of a request (fromX); the daemon gets the request back
// (the params' request method) and calls the Workspace with it (op).

func fromCreate(r lunad.CreateSpec) createParams {
	return createParams{Title: text(r.Title), Type: text(r.Type), Path: text(r.Path), Status: text(r.Status),
		Content: r.Content, Change: fromChange(r.Change)}
}

func (p createParams) request() lunad.CreateSpec {
	return lunad.CreateSpec{Title: string(p.Title), Type: string(p.Type), Path: string(p.Path),
		Status: lunad.Status(p.Status), Content: p.Content, Change: toChange(p.Change)}
}

func fromEdit(r lunad.EditRequest) editParams {
	p := editParams{ID: text(r.ID), BlocksText: text(r.BlocksText), Patch: text(r.Patch), Content: r.Content,
		Rewrite: r.Rewrite, Change: fromChange(r.Change)}
	for _, b := range r.Blocks {
		p.Blocks = append(p.Blocks, blockParams{Path: text(b.Path), Search: text(b.Search), Replace: text(b.Replace)})
	}
	return p
}

func (p editParams) request() lunad.EditRequest {
	r := lunad.EditRequest{ID: string(p.ID), BlocksText: string(p.BlocksText), Patch: string(p.Patch),
		Content: p.Content, Rewrite: p.Rewrite, Change: toChange(p.Change)}
	for _, b := range p.Blocks {
		r.Blocks = append(r.Blocks, lunad.Block{Path: string(b.Path), Search: string(b.Search), Replace: string(b.Replace)})
	}
	return r
}

func fromRef(r lunad.RefRequest) writeParams {
	return writeParams{Ref: text(r.Ref), Change: fromChange(r.Change)}
}

func (p writeParams) request() lunad.RefRequest {
	return lunad.RefRequest{Ref: string(p.Ref), Change: toChange(p.Change)}
}

func fromRestore(r lunad.RestoreRequest) restoreParams {
	return restoreParams{Ref: text(r.Ref), Version: r.Version, Change: fromChange(r.Change)}
}

func (p restoreParams) request() lunad.RestoreRequest {
	return lunad.RestoreRequest{Ref: string(p.Ref), Version: p.Version, Change: toChange(p.Change)}
}

func fromMove(r lunad.MoveRequest) moveParams {
	return moveParams{Ref: text(r.Ref), Path: text(r.Path), Change: fromChange(r.Change)}
}

func (p moveParams) request() lunad.MoveRequest {
	return lunad.MoveRequest{Ref: string(p.Ref), Path: string(p.Path), Change: toChange(p.Change)}
}

func fromLink(r lunad.LinkRequest) linkParams {
	return linkParams{Src: text(r.Src), Dst: text(r.Dst), Kind: text(r.Kind), Change: fromChange(r.Change)}
}

func (p linkParams) request() lunad.LinkRequest {
	return lunad.LinkRequest{Src: string(p.Src), Dst: string(p.Dst), Kind: string(p.Kind), Change: toChange(p.Change)}
}

func fromAck(r lunad.AckRequest) ackParams {
	return ackParams{Ref: text(r.Ref), Symbol: text(r.Symbol), Change: fromChange(r.Change)}
}

func (p ackParams) request() lunad.AckRequest {
	return lunad.AckRequest{Ref: string(p.Ref), Symbol: string(p.Symbol), Change: toChange(p.Change)}
}

func fromBranch(r lunad.BranchRequest) branchParams {
	return branchParams{Name: text(r.Name), From: text(r.From)}
}

func (p branchParams) request() lunad.BranchRequest {
	return lunad.BranchRequest{Name: string(p.Name), From: string(p.From)}
}
