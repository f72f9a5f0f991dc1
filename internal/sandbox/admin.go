package sandbox

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Status is `beamclaw sandbox status`.
type Status struct {
	InstallID     string // whose containers are counted
	Engine        string // the engine's address
	EngineOK      bool
	EngineVersion string
	APIVersion    string // negotiated
	EngineError   string // user-facing, when not EngineOK
	Image         string
	ImageID       string // empty when not built
	ImageCurrent  bool   // built from this binary's files
	Runtime       string // "" = engine default
	RuntimeOK     bool
	Runtimes      []string
	Containers    int    // this installation's
	Problem       string // what Check says, empty when exec can run
}

// Status reports the engine, the image and this installation's
// containers. It never fails: what cannot be learned stays empty.
func (m *Manager) Status(ctx context.Context) Status {
	st := Status{InstallID: m.opts.InstallID, Engine: m.engine.DaemonHost(), Image: m.opts.Image, Runtime: m.opts.Runtime}
	if err := m.Check(ctx); err != nil {
		st.Problem = beamclaw.UserMessage(err)
	}
	v, err := m.engine.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		st.EngineError = "the Docker engine is not reachable: start dockerd"
		return st
	}
	st.EngineOK, st.EngineVersion, st.APIVersion = true, v.Version, m.engine.ClientVersion()
	if id, labels, ok, err := imageLabels(ctx, m.engine, m.opts.Image); err == nil && ok {
		st.ImageID, st.ImageCurrent = id, labels[LabelContent] == ImageContentHash()
	}
	if info, err := m.engine.Info(ctx, client.InfoOptions{}); err == nil {
		for name := range info.Info.Runtimes {
			st.Runtimes = append(st.Runtimes, name)
		}
		sort.Strings(st.Runtimes)
		_, has := info.Info.Runtimes[m.opts.Runtime]
		st.RuntimeOK = m.opts.Runtime == "" || has
	}
	if list, err := m.List(ctx); err == nil {
		st.Containers = len(list)
	}
	return st
}

// ContainerInfo is one line of `beamclaw sandbox list`.
type ContainerInfo struct {
	ID       string // short id
	Name     string
	Scope    string
	Session  string
	Agent    string
	State    string // running, exited, ...
	Status   string // the engine's "Up 3 minutes"
	Created  time.Time
	Mine     bool // owned by this Manager (this daemon)
	InFlight int  // runs in flight (this Manager's containers only)
}

// List returns this installation's sandbox containers, newest first.
func (m *Manager) List(ctx context.Context) ([]ContainerInfo, error) {
	list, err := m.engine.ContainerList(ctx, client.ContainerListOptions{
		All: true, Filters: make(client.Filters).Add("label", LabelInstall+"="+m.opts.InstallID),
	})
	if err != nil {
		return nil, beamclaw.E("sandbox.List", beamclaw.KindUnavailable, "the Docker engine did not answer", err)
	}
	boxes := m.reg.snapshot()
	out := make([]ContainerInfo, 0, len(list.Items))
	for _, c := range list.Items {
		name := containerNameOf(c)
		ci := ContainerInfo{
			ID: shortID(c.ID), Name: name, Scope: c.Labels[LabelScope], Session: c.Labels[LabelSession],
			Agent: c.Labels[LabelAgent], State: string(c.State), Status: c.Status,
			Created: time.Unix(c.Created, 0), Mine: c.Labels[LabelInstance] == m.instance,
		}
		if bi, ok := boxes[name]; ok {
			ci.InFlight = bi.inflight
		}
		out = append(out, ci)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, nil
}

// Kill removes one of this installation's containers by name or id
// (prefix): its service stops when this Manager owns it, and the engine
// removes it otherwise. A run in flight in it fails.
func (m *Manager) Kill(ctx context.Context, idOrName string) error {
	const op = "sandbox.Kill"
	idOrName = strings.TrimSpace(idOrName)
	if idOrName == "" {
		return beamclaw.E(op, beamclaw.KindInvalid, "which container? give its name or id", nil)
	}
	list, err := m.List(ctx)
	if err != nil {
		return err
	}
	var match []ContainerInfo
	for _, c := range list {
		if c.Name == idOrName || strings.HasPrefix(c.ID, idOrName) || strings.HasPrefix(c.Name, idOrName) {
			match = append(match, c)
		}
	}
	switch {
	case len(match) == 0:
		return beamclaw.E(op, beamclaw.KindNotFound, fmt.Sprintf("no sandbox container %q of this installation", idOrName), nil)
	case len(match) > 1:
		return beamclaw.E(op, beamclaw.KindInvalid, fmt.Sprintf("%q matches %d containers: give more of the name", idOrName, len(match)), nil)
	}
	c := match[0]
	if bi, ok := m.reg.snapshot()[c.Name]; ok {
		bi.b.abort() // fail its runs now; the service ends and removes the container
		m.reg.retireNow(bi.b)
	} else if _, err := m.engine.ContainerRemove(ctx, c.Name, client.ContainerRemoveOptions{Force: true}); err != nil {
		return beamclaw.E(op, beamclaw.KindUnavailable, "the Docker engine could not remove the container", err)
	}
	m.emitReaped(c.Name, c.Session, ReapKilled)
	return nil
}
