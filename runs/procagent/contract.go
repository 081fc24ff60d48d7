package procagent

import (
	"encoding/json"

	"github.com/lunad/lunad"
)

// EncodeRequest is a request as an agent reads it on stdin (the
// contract), for a caller that runs the command its own way (a worker's
// sandbox).
func EncodeRequest(req lunad.StageRequest) ([]byte, error) {
	return json.Marshal(normalize(req))
}

// DecodeResponse reads what an agent that exited 0 printed on stdout, and
// classifies it as Process does: the response, or a *lunad.AgentError
// (transient when stdout is empty or not one JSON object, permanent when
// the object breaks the contract).
func DecodeResponse(stdout []byte) (lunad.StageResponse, error) {
	return decodeResponse(stdout)
}
