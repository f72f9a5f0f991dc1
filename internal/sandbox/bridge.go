package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"time"
)

// Bridge limits.
const (
	maxBridgeConns   = 32      // concurrent connections per container
	maxBridgeRequest = 8 << 20 // bytes in one request line
	bridgeWriteLimit = 30 * time.Second
)

// JSON-RPC error codes of the bridge.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcNoMethod       = -32601
	rpcInvalidParams  = -32602
	rpcToolFailed     = -32000 // the tool ran and failed, or was refused by the session's approval path
	rpcDenied         = -32001 // sandbox.policy denies the tool
	rpcNoRun          = -32002 // the run token is unknown or its run has ended
	rpcNoTool         = -32004 // no such tool for this session
)

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// bridgeParams are the params of every method.
type bridgeParams struct {
	RunToken  string          `json:"run_token"`
	Query     string          `json:"query"`
	Limit     int             `json:"limit"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// bridgeServer serves one container's bridge socket.
type bridgeServer struct {
	b   *box
	sem chan struct{}
	wg  sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

func newBridgeServer(b *box) *bridgeServer {
	return &bridgeServer{b: b, sem: make(chan struct{}, maxBridgeConns), conns: map[net.Conn]struct{}{}}
}

// serve accepts until ln is closed, then waits for its connections
// (closeAll ends them).
func (s *bridgeServer) serve(ln net.Listener) {
	defer s.wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		select {
		case s.sem <- struct{}{}:
		default:
			c.Close() // too many connections from this container
			continue
		}
		if !s.track(c) {
			c.Close()
			<-s.sem
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.sem }()
			s.handle(c)
		}()
	}
}

func (s *bridgeServer) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *bridgeServer) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
}

func (s *bridgeServer) handle(c net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 64<<10), maxBridgeRequest)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if !s.write(c, s.dispatch(sc.Bytes())) {
			return
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		s.write(c, rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"),
			Error: &rpcError{rpcInvalidRequest, "request larger than 8 MiB"}})
	}
}

func (s *bridgeServer) write(c net.Conn, resp rpcResponse) bool {
	line, err := json.Marshal(resp)
	if err != nil {
		line, _ = json.Marshal(rpcResponse{JSONRPC: "2.0", ID: resp.ID,
			Error: &rpcError{rpcToolFailed, "the result could not be encoded"}})
	}
	_ = c.SetWriteDeadline(time.Now().Add(bridgeWriteLimit))
	_, err = c.Write(append(line, '\n'))
	return err == nil
}

// dispatch answers one request line.
func (s *bridgeServer) dispatch(line []byte) rpcResponse {
	var req rpcRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return rpcFail(json.RawMessage("null"), rpcParseError, "request is not JSON")
	}
	if len(req.ID) == 0 {
		req.ID = json.RawMessage("null")
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return rpcFail(req.ID, rpcInvalidRequest, `a request needs "jsonrpc": "2.0" and a method`)
	}
	var p bridgeParams
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return rpcFail(req.ID, rpcInvalidParams, "params must be an object")
		}
	}
	r := s.b.runByToken(p.RunToken)
	if r == nil {
		return rpcFail(req.ID, rpcNoRun, "no sandbox run in flight for this token: tools can only be called while the script runs")
	}
	var res any
	var rerr *rpcError
	switch req.Method {
	case "search_tools":
		res, rerr = s.b.m.searchTools(r, p.Query, p.Limit)
	case "get_tool":
		res, rerr = s.b.m.getTool(r, p.Name)
	case "call_tool":
		res, rerr = s.b.m.callTool(r, p.Name, p.Arguments)
	default:
		return rpcFail(req.ID, rpcNoMethod, "unknown method "+req.Method+" (search_tools, get_tool, call_tool)")
	}
	if rerr != nil {
		return rpcResponse{JSONRPC: "2.0", ID: req.ID, Error: rerr}
	}
	return rpcResponse{JSONRPC: "2.0", ID: req.ID, Result: res}
}

func rpcFail(id json.RawMessage, code int, msg string) rpcResponse {
	return rpcResponse{JSONRPC: "2.0", ID: id, Error: &rpcError{code, msg}}
}

func (b *box) runByToken(tok string) *run {
	if tok == "" {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens[tok]
}
