package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ExecConfig is a bounded run of sandboxed exec calls through a running
// daemon whose sandbox is on and whose provider follows fakellm.Rules
// ("call tool exec {...}" answers a native exec call). The turns go over
// the control socket's /ws as the terminal channel: exec is a high-risk
// tool, which remote channels (the OpenAI-compatible API among them) must
// have approved, and the API cannot ask.
type ExecConfig struct {
	Socket string // the daemon's control socket
	Agent  string // default "default"
	// Scopes is how many sessions the run uses: the first exec of each
	// starts its container (First); then N more execs cycle through them
	// (Warm). One at a time.
	Scopes, N  int
	UserPrefix string
	Language   string // default "sh"
	Code       string // default "echo ok"
	Limit      time.Duration
}

// ExecResult is what an exec run measured. Exec is the tool call as the
// client sees it (tool_start to tool_result frame: the container start for
// a first call, the script, the bridge and the daemon's bookkeeping);
// Turn is the whole turn (message sent to final answer, with both provider
// calls and the commits).
type ExecResult struct {
	FirstExec Summary `json:"first_exec"`
	WarmExec  Summary `json:"warm_exec"`
	FirstTurn Summary `json:"first_turn"`
	WarmTurn  Summary `json:"warm_turn"`
	Errors    int     `json:"errors"`
	FirstErr  string  `json:"first_error,omitempty"`
}

// RunExec runs cfg: every scope's first exec, then cfg.N warm ones.
func RunExec(ctx context.Context, cfg ExecConfig) (ExecResult, error) {
	if cfg.Scopes <= 0 || cfg.N < 0 {
		return ExecResult{}, fmt.Errorf("scopes must be positive and n not negative (scopes=%d n=%d)", cfg.Scopes, cfg.N)
	}
	if cfg.Agent == "" {
		cfg.Agent = "default"
	}
	if cfg.Language == "" {
		cfg.Language, cfg.Code = "sh", "echo ok"
	}
	if cfg.Limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Limit)
		defer cancel()
	}
	args, err := json.Marshal(map[string]string{"language": cfg.Language, "code": cfg.Code})
	if err != nil {
		return ExecResult{}, fmt.Errorf("encode exec arguments: %w", err)
	}
	msg := "call tool exec " + string(args)
	c := client.NewUnix(cfg.Socket)
	defer c.Close()
	conns := make([]*client.Conn, cfg.Scopes)
	defer func() {
		for _, conn := range conns {
			if conn != nil {
				_ = conn.Close()
			}
		}
	}()
	var res ExecResult
	var firstExec, warmExec, firstTurn, warmTurn []time.Duration
	fail := func(i int, err error) {
		res.Errors++
		if res.FirstErr == "" {
			res.FirstErr = fmt.Sprintf("exec %d: %v", i, err)
		}
	}
	for i := range cfg.Scopes + cfg.N {
		if ctx.Err() != nil {
			break
		}
		s := i % cfg.Scopes
		if conns[s] == nil {
			conn, err := c.Dial(ctx, cfg.Agent, client.DialOptions{User: fmt.Sprintf("%s%d", cfg.UserPrefix, s), Channel: "tui"})
			if err != nil {
				return res, fmt.Errorf("dial the control socket: %w", err)
			}
			conns[s] = conn
		}
		turn, exec, err := execTurn(ctx, conns[s], msg)
		if err != nil {
			fail(i, err)
			continue
		}
		if i < cfg.Scopes {
			firstExec, firstTurn = append(firstExec, exec), append(firstTurn, turn)
		} else {
			warmExec, warmTurn = append(warmExec, exec), append(warmTurn, turn)
		}
	}
	res.FirstExec, res.WarmExec = Summarize(firstExec), Summarize(warmExec)
	res.FirstTurn, res.WarmTurn = Summarize(firstTurn), Summarize(warmTurn)
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("run stopped after %d of %d execs: %w", len(firstExec)+len(warmExec), cfg.Scopes+cfg.N, err)
	}
	return res, nil
}

// execTurn sends one message and times the turn and its exec call; the
// call must have succeeded (exit code 0).
func execTurn(ctx context.Context, conn *client.Conn, msg string) (turn, exec time.Duration, err error) {
	t0 := time.Now()
	id, err := conn.Send(ctx, msg)
	if err != nil {
		return 0, 0, fmt.Errorf("send: %w", err)
	}
	var runID string
	var started, ended time.Time
	var result string
	for {
		var f protocol.ServerFrame
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case fr, ok := <-conn.Events():
			if !ok {
				return 0, 0, fmt.Errorf("connection closed: %v", conn.Err())
			}
			f = fr
		}
		switch {
		case f.Type == protocol.FrameAck && f.ID == id:
			runID = f.RunID
		case f.Type == protocol.FrameError && (f.ID == id || (runID != "" && f.RunID == runID)):
			return 0, 0, fmt.Errorf("run failed: %s", f.Message)
		case runID == "" || f.RunID != runID:
		case f.Type == protocol.FrameToolStart && f.Tool == "exec":
			started = time.Now()
		case f.Type == protocol.FrameToolResult && f.Tool == "exec":
			ended, result = time.Now(), f.Result
			if f.IsError {
				return 0, 0, fmt.Errorf("exec failed: %s", result)
			}
		case f.Type == protocol.FrameApprovalRequest:
			return 0, 0, errors.New("exec asked for approval: use the terminal channel at supervised or full autonomy")
		case f.Type == protocol.FrameFinal:
			if started.IsZero() || ended.IsZero() {
				return 0, 0, fmt.Errorf("the turn ended without an exec call: %q", f.Text)
			}
			var out struct {
				ExitCode int `json:"exit_code"`
			}
			if err := json.Unmarshal([]byte(result), &out); err != nil || out.ExitCode != 0 {
				return 0, 0, fmt.Errorf("the script failed: %s", result)
			}
			return time.Since(t0), ended.Sub(started), nil
		}
	}
}
