package cluster

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the cluster section of config.yaml. The package owns it
// (ADR-025): defaults, Validate with the rules Start applies, Options.
// Off by default: a single node starts no NATS at all.
type Config struct {
	Enabled bool `yaml:"enabled"`
	// Name is the cluster's name; every node of one cluster names the same.
	Name string `yaml:"name"`
	// NodeID names this node, unique in the cluster.
	NodeID string `yaml:"node_id"`
	// ClientListen is the embedded NATS server's client port (host:port).
	// The daemon itself connects in process; the port serves operators'
	// tools, with the token.
	ClientListen string `yaml:"client_listen"`
	// RouteListen is where the other nodes' routes connect (host:port).
	RouteListen string `yaml:"route_listen"`
	// Routes are the other nodes' route URLs (nats-route://host:port).
	Routes []string `yaml:"routes"`
	// Replicas is how many copies JetStream keeps of each stream and
	// bucket: 1, 3 or 5.
	Replicas int `yaml:"replicas"`
	// Token authenticates clients and routes; required.
	Token setting.Secret `yaml:"token"`
	// TLS secures the routes; required when a route or the route
	// listener is beyond loopback.
	TLS TLSConfig `yaml:"tls"`
	// LeaseTTL is how long a node's claim on a session or a singleton
	// lasts without renewal; a dead node's sessions move after it.
	LeaseTTL setting.Duration `yaml:"lease_ttl"`
}

// TLSConfig is cluster.tls: the routes' certificates.
type TLSConfig struct {
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	CAFile   string `yaml:"ca_file"`
}

// Defaults of the section.
const (
	DefaultClientListen = "127.0.0.1:4222"
	DefaultRouteListen  = "127.0.0.1:6222"
	DefaultReplicas     = 3
	DefaultLeaseTTL     = 3 * time.Second
	DefaultTokenEnv     = "BEAMCLAW_CLUSTER_TOKEN"
	// MinTokenLen is the shortest cluster token accepted.
	MinTokenLen = setting.MinTokenLen
)

// DefaultConfig is the section when the file says nothing: off.
func DefaultConfig() Config {
	return Config{ClientListen: DefaultClientListen, RouteListen: DefaultRouteListen, Routes: []string{},
		Replicas: DefaultReplicas, Token: setting.Env(DefaultTokenEnv), LeaseTTL: setting.Duration{Duration: DefaultLeaseTTL}}
}

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// Validate records every problem of the section under p (the token's
// variable aside: ValidateRuntime).
func (c Config) Validate(p *setting.Problems) {
	if !c.Enabled {
		return
	}
	if !nameRE().MatchString(c.Name) {
		p.Add("name", "%q: want 1-64 letters, digits, '-' or '_'", c.Name)
	}
	if !nameRE().MatchString(c.NodeID) {
		p.Add("node_id", "%q: want 1-64 letters, digits, '-' or '_'", c.NodeID)
	}
	if c.Replicas != 1 && c.Replicas != 3 && c.Replicas != 5 {
		p.Add("replicas", "%d: want 1, 3 or 5", c.Replicas)
	} else if c.Replicas > 1+len(c.Routes) {
		p.Add("replicas", "%d copies need at least %d nodes; routes name %d other(s)", c.Replicas, c.Replicas, len(c.Routes))
	}
	if c.Token.IsZero() {
		p.Add("token", "required when the cluster is enabled: {env: VAR}")
	}
	if c.LeaseTTL.Duration < time.Second || c.LeaseTTL.Duration > time.Minute {
		p.Add("lease_ttl", "%s: want 1s to 1m", c.LeaseTTL.Duration)
	}
	remote := false
	for _, k := range []struct{ key, v string }{{"client_listen", c.ClientListen}, {"route_listen", c.RouteListen}} {
		host, err := hostPort(k.v)
		if err != nil {
			p.Add(k.key, "%q: %v", k.v, err)
			continue
		}
		if !loopback(host) {
			if k.key == "client_listen" {
				p.Add(k.key, "%q: the client port listens on loopback only", k.v)
			}
			remote = true
		}
	}
	for i, r := range c.Routes {
		u, err := routeURL(r)
		if err != nil {
			p.Add(fmt.Sprintf("routes[%d]", i), "%q: %v", r, err)
			continue
		}
		if !loopback(u.Hostname()) {
			remote = true
		}
	}
	c.TLS.validate(p.Under("tls"), remote)
}

func (t TLSConfig) validate(p *setting.Problems, remote bool) {
	set := t.CertFile != "" || t.KeyFile != "" || t.CAFile != ""
	if !set {
		if remote {
			p.Add("", "routes beyond loopback need TLS: cert_file, key_file and ca_file")
		}
		return
	}
	for _, f := range []struct{ key, v string }{{"cert_file", t.CertFile}, {"key_file", t.KeyFile}, {"ca_file", t.CAFile}} {
		if f.v == "" {
			p.Add(f.key, "required with the other TLS files")
		}
	}
}

// ValidateRuntime checks, when the cluster is on, that its token is set
// and long enough in getenv's environment.
func (c Config) ValidateRuntime(p *setting.Problems, getenv func(string) string) {
	if c.Enabled {
		p.Secret("token", c.Token, getenv, MinTokenLen)
	}
}

// Options are what Start needs: the section with its token resolved and
// JetStream's directory.
type Options struct {
	Name, NodeID              string
	ClientListen, RouteListen string
	Routes                    []string
	Replicas                  int
	Token                     string
	CertFile, KeyFile, CAFile string
	LeaseTTL                  time.Duration
	// Dir holds JetStream's files ($BEAMCLAW_HOME/nats).
	Dir string
}

// Options translates the section; nil when the cluster is off.
func (c Config) Options(getenv func(string) string, dir string) *Options {
	if !c.Enabled {
		return nil
	}
	token, _ := c.Token.Resolve(getenv)
	return &Options{Name: c.Name, NodeID: c.NodeID, ClientListen: c.ClientListen, RouteListen: c.RouteListen,
		Routes: append([]string(nil), c.Routes...), Replicas: c.Replicas, Token: token,
		CertFile: c.TLS.CertFile, KeyFile: c.TLS.KeyFile, CAFile: c.TLS.CAFile, LeaseTTL: c.LeaseTTL.Duration, Dir: dir}
}

// hostPort splits a listen address and checks its port.
func hostPort(v string) (string, error) {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return "", fmt.Errorf("want host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("port %q: want 1-65535", port)
	}
	return host, nil
}

// routeURL parses a route: nats-route://host:port, no credentials (the
// token is added from cluster.token).
func routeURL(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a URL")
	case u.Scheme != "nats-route" && u.Scheme != "nats":
		return nil, fmt.Errorf("want nats-route://host:port")
	case u.User != nil:
		return nil, fmt.Errorf("no credentials in the URL: cluster.token is sent")
	case u.Path != "" && u.Path != "/":
		return nil, fmt.Errorf("want nats-route://host:port")
	}
	if _, err := hostPort(u.Host); err != nil {
		return nil, err
	}
	return u, nil
}

// loopback reports whether host names this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
