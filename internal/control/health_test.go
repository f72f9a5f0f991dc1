package control

import (
	"context"
	"net/http"
	"testing"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// GET /control/health and /api/v1/health answer the body of GET /health:
// 200 while the daemon answers, a subsystem that is not ready in it.
func TestHealthThroughBothDoors(t *testing.T) {
	h := protocol.Health{Status: "degraded", Version: "1.2.3",
		Subsystems: map[string]protocol.Subsystem{"sandbox": {Ready: false, Detail: "no image"}, "store": {Ready: true}}}
	sock, api := doors(t, Deps{Health: func(context.Context) protocol.Health { return h }})
	for _, a := range []answer{do(t, sock, http.MethodGet, protocol.ControlHealth, "", ""),
		do(t, api, http.MethodGet, APIPrefix+"/health", apiToken, "")} {
		var got protocol.Health
		decode(t, a, &got)
		if got.Status != "degraded" || got.Ready || got.Version != "1.2.3" || got.Subsystems["sandbox"].Detail != "no image" ||
			!got.Subsystems["store"].Ready {
			t.Errorf("health %+v, want %+v", got, h)
		}
	}
	if a := do(t, api, http.MethodGet, APIPrefix+"/health", "", ""); a.status != http.StatusUnauthorized {
		t.Errorf("the admin API's health without the token: %d %s", a.status, a.body)
	}
	sock, _ = doors(t, Deps{})
	wantError(t, do(t, sock, http.MethodGet, protocol.ControlHealth, "", ""), http.StatusNotFound, "no health")
}
