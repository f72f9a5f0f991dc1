package admin

import (
	"context"
	"fmt"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/a2a"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// A2ADiscover fetches the card of target: a URL, or a peer of a2a.peers.
func (a *Admin) A2ADiscover(ctx context.Context, target, tokenEnv string) (protocol.A2ACard, error) {
	t, err := a.a2aTarget(target, tokenEnv)
	if err != nil {
		return protocol.A2ACard{}, err
	}
	return a2a.NewCaller(nil).DiscoverCard(ctx, t)
}

// A2ASend sends a message to target and waits for the answer (streaming it
// to onEvent when asked).
func (a *Admin) A2ASend(ctx context.Context, req protocol.A2ASendRequest, onEvent func(protocol.A2AEvent)) (protocol.A2AReply, error) {
	t, err := a.a2aTarget(req.Target, req.TokenEnv)
	if err != nil {
		return protocol.A2AReply{}, err
	}
	return a2a.NewCaller(nil).SendReply(ctx, t,
		a2a.Request{Text: req.Message, TaskID: req.TaskID, ContextID: req.ContextID, Stream: req.Stream}, onEvent)
}

// a2aTarget resolves a URL, or the name of a peer (its url and token from
// the config). A token comes only from the environment.
func (a *Admin) a2aTarget(target, tokenEnv string) (a2a.Target, error) {
	t := a2a.Target{URL: target}
	if !strings.Contains(target, "://") {
		l, err := a.load()
		if err != nil {
			return t, err
		}
		p, ok := l.A2A.Peers[target]
		switch {
		case !ok:
			return t, fmt.Errorf("%q is neither a URL nor a peer of a2a.peers", target)
		case p.URL == "":
			return t, fmt.Errorf("peer %q has no url to call", target)
		}
		t.URL = p.URL
		t.Token, _ = p.Token.Resolve(a.getenv)
	}
	if tokenEnv != "" {
		tok := a.getenv(tokenEnv)
		if tok == "" {
			return t, fmt.Errorf("environment variable %s is not set", tokenEnv)
		}
		t.Token = tok
	}
	return t, nil
}
