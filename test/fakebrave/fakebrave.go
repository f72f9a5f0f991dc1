// Package fakebrave is a fake of the Brave Search web search API for
// tests: a real HTTP server on 127.0.0.1 that checks the
// X-Subscription-Token header and answers GET /web/search with Brave's
// JSON shape ({"web":{"results":[{"title","url","description"}]}}).
//
// Imported only by tests (internal/tool/builtin, end-to-end suites).
package fakebrave

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
)

// Result is one web result as Brave returns it.
type Result struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
}

// Request is what the fake saw of one search.
type Request struct {
	Query string
	Count int
	Token string
}

// Server is a running fake. URL is the base URL to configure
// (tools.web_search.base_url); searches go to URL + "/web/search".
type Server struct {
	URL string

	srv     *httptest.Server
	key     string
	results func(query string) []Result
	mu      sync.Mutex
	reqs    []Request
}

// New starts a fake accepting key and answering every query with
// results(query), cut to the requested count. Close it when done.
func New(key string, results func(query string) []Result) *Server {
	s := &Server{key: key, results: results}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /web/search", s.search)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the searches seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	count, err := strconv.Atoi(q.Get("count"))
	if err != nil || count <= 0 {
		count = 20
	}
	token := r.Header.Get("X-Subscription-Token")
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Query: q.Get("q"), Count: count, Token: token})
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if token != s.key {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","status":401}}`))
		return
	}
	if q.Get("q") == "" {
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"type":"ErrorResponse","error":{"code":"VALIDATION","status":422}}`))
		return
	}
	res := s.results(q.Get("q"))
	if len(res) > count {
		res = res[:count]
	}
	type web struct {
		Type    string   `json:"type"`
		Results []Result `json:"results"`
	}
	_ = json.NewEncoder(w).Encode(struct {
		Type string `json:"type"`
		Web  web    `json:"web"`
	}{Type: "search", Web: web{Type: "search", Results: res}})
}
