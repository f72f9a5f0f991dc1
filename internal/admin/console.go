package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ConsoleCode asks the running daemon for a one-time code of the web
// console, and returns it with the login page's URL.
func (a *Admin) ConsoleCode(ctx context.Context) (protocol.ConsoleCode, string, error) {
	paths, err := a.paths()
	if err != nil {
		return protocol.ConsoleCode{}, "", err
	}
	c := client.NewUnix(paths.Socket)
	defer c.Close()
	st, err := c.Status(ctx)
	if errors.Is(err, client.ErrNoDaemon) {
		return protocol.ConsoleCode{}, "", fmt.Errorf("%w: start it with beamclaw start", err)
	}
	if err != nil {
		return protocol.ConsoleCode{}, "", err
	}
	var out protocol.ConsoleCode
	if _, err := controlDo(ctx, paths.Socket, http.MethodPost, protocol.ControlConsoleCode, nil, &out); err != nil {
		if ce, ok := errors.AsType[*client.Error](err); ok && ce.Status == http.StatusNotFound {
			return protocol.ConsoleCode{}, "", errors.New("the running daemon serves no web console (gateway.console.enabled: false)")
		}
		return protocol.ConsoleCode{}, "", err
	}
	return out, "http://" + st.HTTPAddr + out.Path, nil
}
