package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Reply is one canned HTTP answer.
type Reply struct {
	Status int
	Header map[string]string // Content-Type defaults to application/json
	Body   string
	Wait   <-chan struct{} // answer only once closed (or the request is cancelled)
}

// Server answers with its replies in order; the last one repeats.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	replies []Reply
	bodies  []map[string]any
	headers []http.Header
	paths   []string
}

// New starts a server closed at the end of the test. A request body that
// is not a JSON object fails the test.
func New(t *testing.T, replies ...Reply) *Server {
	t.Helper()
	s := &Server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not a JSON object: %v: %s", err, raw)
		}
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		s.paths = append(s.paths, r.URL.Path)
		rep := s.replies[min(n, len(s.replies)-1)]
		s.mu.Unlock()
		if rep.Wait != nil {
			select {
			case <-rep.Wait:
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(rep.Status)
		io.WriteString(w, rep.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

// Count is the number of requests so far.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// Body is the i-th request's JSON body.
func (s *Server) Body(i int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// Header is the i-th request's header.
func (s *Server) Header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

// Path is the i-th request's URL path.
func (s *Server) Path(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[i]
}

// Env is a getenv over vars.
func Env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// JSON marshals v, failing the test on error.
func JSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
