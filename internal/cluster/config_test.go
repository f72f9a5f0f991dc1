package cluster

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

func validCluster() Config {
	c := DefaultConfig()
	c.Enabled, c.Name, c.NodeID = true, "team", "n1"
	c.Token = setting.Env("BEAMCLAW_CLUSTER_TOKEN")
	c.Routes = []string{"nats-route://127.0.0.1:6223", "nats-route://localhost:6224"}
	return c
}

// problemKeys runs Validate and returns the keys it names.
func problemKeys(c Config) []string {
	var p setting.Problems
	c.Validate(&p)
	var keys []string
	for _, err := range unjoin(p.Err()) {
		var e *setting.Error
		if errors.As(err, &e) {
			keys = append(keys, e.Key)
		}
	}
	return keys
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

func TestValidateNamesEachBadKey(t *testing.T) {
	if keys := problemKeys(validCluster()); len(keys) != 0 {
		t.Fatalf("a valid section: %v", keys)
	}
	off := DefaultConfig()
	off.Replicas = 2
	if keys := problemKeys(off); len(keys) != 0 {
		t.Fatalf("an off section is not checked: %v", keys)
	}
	tls := validCluster()
	tls.Routes = []string{"nats-route://10.0.0.2:6222", "nats-route://10.0.0.3:6222"}
	tls.TLS = TLSConfig{CertFile: "c.pem", KeyFile: "k.pem", CAFile: "ca.pem"}
	if keys := problemKeys(tls); len(keys) != 0 {
		t.Fatalf("remote routes with TLS: %v", keys)
	}
	for _, tc := range []struct {
		key    string
		change func(*Config)
	}{
		{"name", func(c *Config) { c.Name = "" }},
		{"node_id", func(c *Config) { c.NodeID = "n 1" }},
		{"replicas", func(c *Config) { c.Replicas = 2 }},
		{"replicas", func(c *Config) { c.Replicas = 5 }},
		{"token", func(c *Config) { c.Token = setting.Secret{} }},
		{"lease_ttl", func(c *Config) { c.LeaseTTL.Duration = 100 * time.Millisecond }},
		{"client_listen", func(c *Config) { c.ClientListen = "0.0.0.0:4222" }},
		{"client_listen", func(c *Config) { c.ClientListen = "127.0.0.1" }},
		{"route_listen", func(c *Config) { c.RouteListen = "127.0.0.1:99999" }},
		{"routes[1]", func(c *Config) { c.Routes[1] = "http://127.0.0.1:6224" }},
		{"routes[0]", func(c *Config) { c.Routes[0] = "nats-route://u:p@127.0.0.1:6223" }},
		{"tls", func(c *Config) { c.Routes[0] = "nats-route://10.0.0.2:6222" }},
		{"tls", func(c *Config) { c.RouteListen = "0.0.0.0:6222" }},
		{"tls.ca_file", func(c *Config) { c.TLS = TLSConfig{CertFile: "c.pem", KeyFile: "k.pem"} }},
	} {
		c := validCluster()
		c.Routes = append([]string(nil), c.Routes...)
		tc.change(&c)
		keys := problemKeys(c)
		if !slices.Contains(keys, tc.key) {
			t.Errorf("want a problem at %s, got %v", tc.key, keys)
		}
	}
}

func TestValidateRuntimeWantsALongToken(t *testing.T) {
	c := validCluster()
	var p setting.Problems
	c.ValidateRuntime(&p, func(string) string { return "short" })
	if p.Err() == nil || !strings.Contains(p.Err().Error(), "too short") {
		t.Fatalf("a short token: %v", p.Err())
	}
	p = setting.Problems{}
	c.ValidateRuntime(&p, func(string) string { return testToken })
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
}
