package fakellm

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Paths the server answers (under its URL, which ends in /v1).
const (
	PathChat           = "/v1/chat/completions"
	PathEmbeddings     = "/v1/embeddings"
	PathTranscriptions = "/v1/audio/transcriptions"
	PathModels         = "/v1/models"
)

// Responder makes the reply to a chat request nothing was scripted for.
type Responder func(Request) Reply

// Server is a running fake. All methods are safe for concurrent use.
type Server struct {
	hs      *httptest.Server
	done    chan struct{}
	once    sync.Once
	created int64

	mu       sync.Mutex
	queues   map[string][]Reply
	requests []Request
	def      Responder
	seq      int

	cachePrefixes bool     // CachePrefixes
	prompts       [][]byte // earlier prompts, for CachePrefixes
}

// New starts a server on 127.0.0.1 for one test and closes it when the
// test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s, err := Listen("127.0.0.1:0")
	if err != nil {
		tb.Fatalf("fakellm: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Start starts a server on a free 127.0.0.1 port. It panics if no port can
// be bound (as httptest.NewServer does). Call Close when done.
func Start() *Server {
	s, err := Listen("127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakellm: %v", err))
	}
	return s
}

// Listen starts a server on addr ("127.0.0.1:8089", or port 0 for a free
// one). Call Close when done.
func Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	s := &Server{
		done:    make(chan struct{}),
		created: time.Now().Unix(),
		queues:  make(map[string][]Reply),
		def:     Echo,
	}
	s.hs = &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.routes()}}
	s.hs.Start()
	return s, nil
}

// URL is the base URL of the OpenAI API, ending in /v1
// ("http://127.0.0.1:PORT/v1").
func (s *Server) URL() string { return s.hs.URL + "/v1" }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.hs.Listener.Addr().String() }

// Close releases held replies, cuts open connections and stops the server.
// It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.hs.CloseClientConnections()
		s.hs.Close()
	})
}

// Script queues chat replies, consumed in order, one per request (chat
// completions and Anthropic's messages alike); when the queue is empty
// the default Responder answers.
func (s *Server) Script(replies ...Reply) { s.ScriptFor(PathChat, replies...) }

// ScriptFor queues replies for another path (PathEmbeddings,
// PathTranscriptions): there only Text (the transcript), Status, Error,
// RetryAfter, Drop and Hold matter.
func (s *Server) ScriptFor(path string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[path] = append(s.queues[path], replies...)
}

// Pending reports how many scripted chat replies are still queued.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queues[PathChat])
}

// SetDefault sets the Responder for unscripted chat requests (Echo by
// default; Rules for command-driven behaviour).
func (s *Server) SetDefault(r Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = r
}

// Requests returns every chat request received so far (chat completions
// and Anthropic's messages), in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if r.Path == PathChat || r.Path == PathMessages {
			out = append(out, r)
		}
	}
	return out
}

// AllRequests returns every request received on any API path.
func (s *Server) AllRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Reset empties every queue and forgets recorded requests.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues = make(map[string][]Reply)
	s.requests = nil
}

// next records req and returns the scripted reply for its path, or ok
// false when nothing is queued.
func (s *Server) next(req Request) (reply Reply, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	path := req.Path
	if path == PathMessages {
		path = PathChat // one script for a chat, whichever wire it came on
	}
	q := s.queues[path]
	if len(q) == 0 {
		return Reply{}, false
	}
	s.queues[path] = q[1:]
	return q[0], true
}

func (s *Server) defaultReply(req Request) Reply {
	s.mu.Lock()
	def := s.def
	s.mu.Unlock()
	return def(req)
}

// nextID returns a fresh sequence number for ids.
func (s *Server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+PathChat, s.handleChat)
	mux.HandleFunc("POST "+PathMessages, s.handleMessages)
	mux.HandleFunc("POST "+PathEmbeddings, s.handleEmbeddings)
	mux.HandleFunc("POST "+PathTranscriptions, s.handleTranscription)
	mux.HandleFunc("GET "+PathModels, s.handleModels)
	mux.HandleFunc("POST /__script", s.handleScript)
	mux.HandleFunc("GET /__requests", s.handleRequests)
	mux.HandleFunc("POST /__reset", s.handleReset)
	return mux
}
