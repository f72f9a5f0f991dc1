package a2a

import (
	"context"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// DiscoverCard is Discover as `beamclaw a2a discover` shows it.
func (c *Caller) DiscoverCard(ctx context.Context, t Target) (protocol.A2ACard, error) {
	card, err := c.Discover(ctx, t)
	if err != nil {
		return protocol.A2ACard{}, err
	}
	out := protocol.A2ACard{Name: card.Name, Description: card.Description, Version: card.Version,
		Streaming: card.Capabilities.Streaming, PushNotifications: card.Capabilities.PushNotifications,
		ExtendedCard: card.Capabilities.ExtendedAgentCard}
	for _, i := range card.SupportedInterfaces {
		if i != nil {
			out.Interfaces = append(out.Interfaces, protocol.A2AInterface{URL: i.URL, Binding: string(i.ProtocolBinding),
				ProtocolVersion: string(i.ProtocolVersion)})
		}
	}
	for _, s := range card.Skills {
		out.Skills = append(out.Skills, protocol.A2ASkill{ID: s.ID, Name: s.Name, Description: s.Description})
	}
	for name, scheme := range card.SecuritySchemes {
		out.Security = append(out.Security, string(name)+": "+schemeName(scheme))
	}
	slices.Sort(out.Security)
	return out, nil
}

func schemeName(s a2a.SecurityScheme) string {
	switch v := s.(type) {
	case a2a.HTTPAuthSecurityScheme:
		return "HTTP " + v.Scheme
	case a2a.APIKeySecurityScheme:
		return "API key in " + string(v.Location) + " " + v.Name
	case a2a.OAuth2SecurityScheme:
		return "OAuth 2"
	case a2a.OpenIDConnectSecurityScheme:
		return "OpenID Connect"
	case a2a.MutualTLSSecurityScheme:
		return "mutual TLS"
	}
	return "unknown"
}

// SendReply is Send as `beamclaw a2a send` shows it.
func (c *Caller) SendReply(ctx context.Context, t Target, r Request, onEvent func(protocol.A2AEvent)) (protocol.A2AReply, error) {
	var each func(a2a.Event)
	if onEvent != nil {
		each = func(ev a2a.Event) {
			if e, ok := eventOf(ev); ok {
				onEvent(e)
			}
		}
	}
	rep, err := c.Send(ctx, t, r, each)
	if err != nil {
		return protocol.A2AReply{}, err
	}
	return protocol.A2AReply{TaskID: rep.TaskID, ContextID: rep.ContextID, State: rep.State, Text: rep.Text}, nil
}

func eventOf(ev a2a.Event) (protocol.A2AEvent, bool) {
	switch e := ev.(type) {
	case *a2a.Task:
		return protocol.A2AEvent{Kind: "task", State: stateName(e.Status.State), Text: textOf(e.Status.Message)}, true
	case *a2a.TaskStatusUpdateEvent:
		return protocol.A2AEvent{Kind: "status", State: stateName(e.Status.State), Text: textOf(e.Status.Message)}, true
	case *a2a.TaskArtifactUpdateEvent:
		if e.Artifact == nil {
			return protocol.A2AEvent{}, false
		}
		return protocol.A2AEvent{Kind: "artifact", Text: textOfParts(e.Artifact.Parts), Append: e.Append}, true
	case *a2a.Message:
		return protocol.A2AEvent{Kind: "message", Text: textOf(e)}, true
	}
	return protocol.A2AEvent{}, false
}
