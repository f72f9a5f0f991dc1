package cli

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// a2aBackend answers the a2a commands with a canned card, stream and reply.
type a2aBackend struct {
	fakeBackend
	card   protocol.A2ACard
	events []protocol.A2AEvent
	reply  protocol.A2AReply
	sent   protocol.A2ASendRequest
	token  string
}

func (f *a2aBackend) A2ADiscover(_ context.Context, target, tokenEnv string) (protocol.A2ACard, error) {
	f.call("discover " + target)
	f.token = tokenEnv
	return f.card, f.err
}

func (f *a2aBackend) A2ASend(_ context.Context, req protocol.A2ASendRequest, onEvent func(protocol.A2AEvent)) (protocol.A2AReply, error) {
	f.call("send " + req.Target)
	f.sent = req
	if onEvent != nil {
		for _, ev := range f.events {
			onEvent(ev)
		}
	}
	return f.reply, f.err
}

func TestA2ACommands(t *testing.T) {
	card := protocol.A2ACard{Name: "default", Version: "1.2", Description: "an agent", Streaming: true,
		Interfaces: []protocol.A2AInterface{{URL: "http://h/a2a", Binding: "JSONRPC", ProtocolVersion: "1.0"}},
		Skills:     []protocol.A2ASkill{{ID: "chat", Description: "talks"}}, Security: []string{"bearer: HTTP Bearer"}}
	stream := []protocol.A2AEvent{{Kind: "task", State: "submitted"}, {Kind: "status", State: "working"},
		{Kind: "artifact", Text: "Hel"}, {Kind: "artifact", Text: "lo", Append: true}, {Kind: "artifact", Text: "Hello"},
		{Kind: "status", State: "completed", Text: "Hello"}}
	done := protocol.A2AReply{TaskID: "t1", ContextID: "c1", State: "completed", Text: "Hello"}
	tests := []struct {
		name     string
		args     []string
		reply    protocol.A2AReply
		wantCode int
		wantOut  []string
		wantSent protocol.A2ASendRequest
	}{
		{name: "discover", args: []string{"a2a", "discover", "http://h", "--token-env", "TOK"},
			wantOut: []string{"default 1.2", "security: bearer: HTTP Bearer", "JSONRPC  1.0      http://h/a2a", "chat   talks"}},
		{name: "send", args: []string{"a2a", "send", "research", "hi"}, reply: done,
			wantOut:  []string{"Hello", "(completed: task t1, context c1)"},
			wantSent: protocol.A2ASendRequest{Target: "research", Message: "hi"}},
		{name: "send streaming", args: []string{"a2a", "send", "research", "hi", "--stream", "--context", "c0"}, reply: done,
			wantOut:  []string{"Hello", "(completed: task t1, context c1)"},
			wantSent: protocol.A2ASendRequest{Target: "research", Message: "hi", Stream: true, ContextID: "c0"}},
		{name: "a failed task fails the command", args: []string{"a2a", "send", "http://h", "hi"},
			reply: protocol.A2AReply{TaskID: "t2", State: "failed", Text: "boom"}, wantCode: 1,
			wantOut:  []string{"boom", "(failed: task t2, context )"},
			wantSent: protocol.A2ASendRequest{Target: "http://h", Message: "hi"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &a2aBackend{card: card, events: stream, reply: tc.reply}
			r := run(t, f, "", tc.args...)
			r.want(t, tc.wantCode, tc.wantOut, nil)
			if diff := cmp.Diff(tc.wantSent, f.sent); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
		})
	}
}
