package a2a

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// securityScheme names the one scheme the cards declare: a bearer token
// (gateway.auth.token or the peer's token), checked on every call.
const securityScheme = "bearer"

// cardRequest is what building a card needs of its HTTP request.
type cardRequest struct {
	base  string // scheme://host of the gateway as the caller reached it
	agent string
}

type cardKey struct{}

// endpoint is the JSON-RPC URL path of an agent.
func (s *Server) endpoint(agent string) string {
	if agent == s.defaultAgent() {
		return "/a2a"
	}
	return "/a2a/agents/" + url.PathEscape(agent)
}

// baseURL is where the cards say the gateway is: a2a.public_url, or the
// scheme and host the request came to.
func (s *Server) baseURL(r *http.Request) string {
	if s.opts.PublicURL != "" {
		return strings.TrimSuffix(s.opts.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// card is the public agent card of an agent: what it is, where and how
// to call it, what it can do. It declares only what works: streaming,
// push notifications when enabled, the extended card.
func (s *Server) card(ctx context.Context) (*a2a.AgentCard, error) {
	cr, _ := ctx.Value(cardKey{}).(cardRequest)
	rpc := cr.base + s.endpoint(cr.agent)
	c := &a2a.AgentCard{
		Name:        cr.agent,
		Description: "The beamclaw agent \"" + cr.agent + "\": an AI assistant with tools. Send it a message; it answers in text.",
		Version:     s.opts.Version,
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(rpc, a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface(rpc+"/rest", a2a.TransportProtocolHTTPJSON),
			{URL: rpc, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
		},
		Capabilities:       *s.capabilities(),
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain"},
		SecuritySchemes: a2a.NamedSecuritySchemes{securityScheme: a2a.HTTPAuthSecurityScheme{Scheme: "Bearer",
			Description: "The gateway token, or the token shared with this peer (a2a.peers)."}},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{securityScheme: {}}},
		Skills:               s.skills(cr.agent),
	}
	return c, nil
}

// skills are what the agent offers: conversation, and the skills of its
// workspace that it can use here.
func (s *Server) skills(agent string) []a2a.AgentSkill {
	out := []a2a.AgentSkill{{ID: "chat", Name: "Conversation",
		Description: "Answers questions and carries out requests, using its tools (with approval where its policy asks).",
		Tags:        []string{"chat", "assistant"}}}
	list, err := s.opts.Agents.Skills(agent)
	if err != nil {
		s.log.Warn("a2a card: skills", "agent", agent, "err", err)
		return out
	}
	for _, sk := range list {
		out = append(out, a2a.AgentSkill{ID: sk.Name, Name: sk.Name, Description: sk.Description,
			Tags: []string{"skill"}})
	}
	return out
}

// extendedCard is the card authenticated callers get (GetExtendedAgentCard).
func (s *Server) extendedCard(ctx context.Context, _ *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	return s.card(ctx)
}
