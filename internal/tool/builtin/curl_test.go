package builtin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// fakeResolver answers from a fixed table.
type fakeResolver map[string][]string

func (f fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]net.IPAddr, len(ips))
	for i, s := range ips {
		out[i] = net.IPAddr{IP: net.ParseIP(s)}
	}
	return out, nil
}

// publicLoopback plays the internet in tests: 127.0.0.1 (where httptest
// listens) counts as public, everything else gets the real policy.
func publicLoopback(ip net.IP) error {
	if ip.Equal(net.IPv4(127, 0, 0, 1)) {
		return nil
	}
	return builtin.CheckPublicIP(ip)
}

func TestCheckPublicIP(t *testing.T) {
	tests := []struct {
		ip      string
		blocked bool
	}{
		{"127.0.0.1", true}, {"127.1.2.3", true}, {"10.1.2.3", true}, {"172.16.0.1", true},
		{"172.31.255.255", true}, {"192.168.1.1", true}, {"100.64.0.1", true}, {"100.127.255.254", true},
		{"169.254.169.254", true}, {"0.0.0.0", true}, {"224.0.0.1", true}, {"255.255.255.255", true},
		{"::1", true}, {"::", true}, {"fc00::1", true}, {"fd12:3456::1", true}, {"fe80::1", true},
		{"ff02::1", true}, {"::ffff:127.0.0.1", true}, {"::ffff:169.254.169.254", true},
		{"64:ff9b::a9fe:a9fe", true}, {"2002:0a00:0001::1", true},
		{"8.8.8.8", false}, {"1.1.1.1", false}, {"100.128.0.1", false}, {"172.32.0.1", false},
		{"2606:4700:4700::1111", false}, {"64:ff9b::808:808", false},
	}
	for _, tc := range tests {
		t.Run(tc.ip, func(t *testing.T) {
			err := builtin.CheckPublicIP(net.ParseIP(tc.ip))
			if blocked := err != nil; blocked != tc.blocked {
				t.Errorf("CheckPublicIP(%s) = %v, want blocked=%v", tc.ip, err, tc.blocked)
			}
			if err != nil && !errors.Is(err, builtin.ErrBlockedAddress) {
				t.Errorf("error %v does not wrap ErrBlockedAddress", err)
			}
		})
	}
}

func TestCurlSSRF(t *testing.T) {
	var hits atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "internal data")
	}))
	defer internal.Close()
	_, port, _ := net.SplitHostPort(internal.Listener.Addr().String())
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-private-name":
			http.Redirect(w, r, "http://internal.test:"+port+"/", http.StatusFound)
		case "/to-ipv6-loopback":
			http.Redirect(w, r, "http://[::1]:"+port+"/", http.StatusFound)
		default:
			fmt.Fprint(w, "public")
		}
	}))
	defer public.Close()
	resolver := fakeResolver{"internal.test": {"127.0.0.2"}, "rebind.test": {"10.0.0.7"}, "mixed.test": {"192.168.0.9", "127.0.0.1"}}

	strict := builtin.NewCurl(builtin.CurlOptions{Resolver: resolver})
	tests := []struct {
		name string
		tool *builtin.Curl
		url  string
		want string
	}{
		{"loopback", strict, internal.URL, "127.0.0.1 is a private, loopback, link-local or reserved address"},
		{"metadata", strict, "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a private"},
		{"dns name to private ip", strict, "http://rebind.test/", "rebind.test: blocked address: 10.0.0.7"},
		{"ipv6 loopback literal", strict, "http://[::1]:" + port + "/", "::1 is a private"},
		{"redirect to metadata", builtin.NewCurl(builtin.CurlOptions{Resolver: resolver, IPCheck: publicLoopback}), public.URL + "/to-metadata", "169.254.169.254 is a private"},
		{"redirect to private name", builtin.NewCurl(builtin.CurlOptions{Resolver: resolver, IPCheck: publicLoopback}), public.URL + "/to-private-name", "internal.test: blocked address: 127.0.0.2"},
		{"redirect to ipv6 loopback", builtin.NewCurl(builtin.CurlOptions{Resolver: resolver, IPCheck: publicLoopback}), public.URL + "/to-ipv6-loopback", "::1 is a private"},
		{"file scheme", strict, "file:///etc/passwd", `only http and https URLs are supported, not "file"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustErr(t, call(t, t.Context(), tc.tool, "", map[string]any{"url": tc.url}))
			if !strings.Contains(got, tc.want) {
				t.Errorf("error = %q, want it to contain %q", got, tc.want)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal server was reached %d times", n)
	}

	// Only the allowed address of a mixed answer is dialed.
	mixed := builtin.NewCurl(builtin.CurlOptions{Resolver: resolver, IPCheck: publicLoopback})
	_, pport, _ := net.SplitHostPort(public.Listener.Addr().String())
	if got := mustOK(t, call(t, t.Context(), mixed, "", map[string]any{"url": "http://mixed.test:" + pport + "/"})); !strings.HasSuffix(got, "\n\npublic") {
		t.Errorf("mixed = %q", got)
	}
}

func TestCurlAllowed(t *testing.T) {
	var gotMethod, gotBody, gotHeader string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotMethod, gotBody, gotHeader = r.Method, string(b), r.Header.Get("X-Test")
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Internal", "hidden")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, strings.Repeat("b", 40))
	}))
	defer srv.Close()
	c := builtin.NewCurl(builtin.CurlOptions{AllowPrivate: true, MaxResponseBytes: 32})
	got := mustOK(t, call(t, t.Context(), c, "", map[string]any{
		"url": srv.URL + "/x", "method": "POST", "headers": map[string]string{"X-Test": "yes"}, "body": "payload",
	}))
	want := "HTTP/1.1 201 Created\nContent-Type: text/plain\nContent-Length: 40\n\n" + strings.Repeat("b", 32) + "\n[body truncated at 32 bytes]"
	if got != want {
		t.Errorf("output:\n%q\nwant:\n%q", got, want)
	}
	if gotMethod != "POST" || gotBody != "payload" || gotHeader != "yes" {
		t.Errorf("server saw %s %q X-Test=%q", gotMethod, gotBody, gotHeader)
	}
	mustErr(t, call(t, t.Context(), c, "", map[string]any{"url": srv.URL, "method": "TRACE"}))
}

func TestCurlRedirectLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusFound)
	}))
	defer srv.Close()
	c := builtin.NewCurl(builtin.CurlOptions{AllowPrivate: true})
	if got := mustErr(t, call(t, t.Context(), c, "", map[string]any{"url": srv.URL})); !strings.Contains(got, "stopped after 5 redirects") {
		t.Errorf("error = %q", got)
	}
}

// CheckHost refuses a host when any address it resolves to is blocked,
// before anything is dialled (A2A push URLs are checked when configured).
func TestCheckHost(t *testing.T) {
	resolver := fakeResolver{"public.test": {"93.184.216.34"}, "mixed.test": {"93.184.216.34", "10.1.2.3"},
		"local.test": {"127.0.0.1"}}
	cases := []struct {
		host    string
		blocked bool
	}{
		{"public.test", false},
		{"mixed.test", true},
		{"local.test", true},
		{"127.0.0.1", true},
		{"169.254.169.254", true},
		{"::1", true},
		{"93.184.216.34", false},
	}
	for _, tc := range cases {
		err := builtin.CheckHost(context.Background(), builtin.CheckPublicIP, resolver, tc.host)
		if blocked := errors.Is(err, builtin.ErrBlockedAddress); blocked != tc.blocked {
			t.Errorf("CheckHost(%s) = %v, want blocked %v", tc.host, err, tc.blocked)
		}
	}
	if err := builtin.CheckHost(context.Background(), builtin.CheckPublicIP, resolver, "unknown.test"); err == nil || errors.Is(err, builtin.ErrBlockedAddress) {
		t.Errorf("unresolvable host: %v, want a resolve error", err)
	}
}
