package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// newEngine returns a Docker engine client for host ("" = DOCKER_HOST or
// the default socket). The API version is negotiated on first use (the
// engine here speaks 1.41). It does not connect.
func newEngine(host string) (*client.Client, error) {
	opts := []client.Opt{client.FromEnv}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	c, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return c, nil
}

// pingEngine checks the engine answers, as a user-facing error.
func pingEngine(ctx context.Context, c *client.Client, op string) error {
	if _, err := c.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return beamclaw.E(op, beamclaw.KindUnavailable, fmt.Sprintf(
			"the Docker engine is not reachable at %s: start dockerd (or add this user to the docker group); "+
				"sandboxed code execution stays off until then and code never runs on the host", c.DaemonHost()), err)
	}
	return nil
}

// imageLabels returns the labels of image, or ok=false when it does not
// exist.
func imageLabels(ctx context.Context, c *client.Client, image string) (id string, labels map[string]string, ok bool, err error) {
	res, err := c.ImageInspect(ctx, image)
	if cerrdefs.IsNotFound(err) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, fmt.Errorf("inspect image %s: %w", image, err)
	}
	if res.Config != nil {
		labels = res.Config.Labels
	}
	return res.ID, labels, true, nil
}

// checkRuntime fails with a user-facing error when the engine lacks rt.
func checkRuntime(ctx context.Context, c *client.Client, rt, op string) error {
	if rt == "" || rt == "runc" {
		return nil
	}
	info, err := c.Info(ctx, client.InfoOptions{})
	if err != nil {
		return fmt.Errorf("docker info: %w", err)
	}
	if _, ok := info.Info.Runtimes[rt]; ok {
		return nil
	}
	have := make([]string, 0, len(info.Info.Runtimes))
	for name := range info.Info.Runtimes {
		have = append(have, name)
	}
	return beamclaw.E(op, beamclaw.KindUnavailable, fmt.Sprintf(
		"sandbox runtime %q is not registered with the Docker engine (it has: %s): install gVisor and add "+
			`"runtimes": {"runsc": {"path": "/usr/local/bin/runsc", "runtimeArgs": ["--host-uds=all"]}} to /etc/docker/daemon.json, `+
			"or leave the runtime empty", rt, strings.Join(have, ", ")), nil)
}

// jsonStreamMessage is one line of the engine's build/import progress.
type jsonStreamMessage struct {
	Stream      string `json:"stream"`
	Status      string `json:"status"`
	Error       string `json:"error"`
	ErrorDetail *struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// copyJSONStream writes the engine's progress stream to w and returns the
// first error message it reports.
func copyJSONStream(r io.Reader, w io.Writer) error {
	dec := json.NewDecoder(r)
	for {
		var m jsonStreamMessage
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("read engine progress: %w", err)
		}
		switch {
		case m.Error != "":
			return errors.New(m.Error)
		case m.ErrorDetail != nil && m.ErrorDetail.Message != "":
			return errors.New(m.ErrorDetail.Message)
		case m.Stream != "":
			_, _ = io.WriteString(w, m.Stream)
		case m.Status != "":
			_, _ = io.WriteString(w, m.Status+"\n")
		}
	}
}
