package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// CurlOptions configure the curl tool.
type CurlOptions struct {
	// AllowPrivate lets curl reach loopback, private and link-local
	// addresses (tools.curl.allow_private, default false).
	AllowPrivate bool
	// IPCheck replaces the address policy (default CheckPublicIP, or none
	// with AllowPrivate). It sees every address connected to, redirects
	// included.
	IPCheck func(net.IP) error
	// Resolver resolves host names (default net.DefaultResolver).
	Resolver Resolver
	// MaxResponseBytes caps the body shown (tools.curl.max_response_bytes,
	// default 1 MiB; the registry caps what reaches the model further).
	MaxResponseBytes int64
	// Timeout bounds a whole request, redirects included (default 30 s).
	Timeout time.Duration
	// MaxRedirects is the most redirects followed (default 5).
	MaxRedirects int
	// UserAgent is sent unless the call sets one (default "beamclaw-curl").
	UserAgent string
}

const curlSchema = `{
  "type": "object",
  "properties": {
    "url": {"type": "string", "minLength": 1},
    "method": {"type": "string", "enum": ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]},
    "headers": {"type": "object", "additionalProperties": {"type": "string"}},
    "body": {"type": "string"}
  },
  "required": ["url"],
  "additionalProperties": false
}`

const curlDesc = "HTTP(S) request; returns status, main headers and body."

// shownHeaders are the response headers included in curl's output.
var shownHeaders = []string{"Content-Type", "Content-Length", "Location", "Last-Modified", "ETag", "Retry-After"}

// Curl is an HTTP client guarded against server-side request forgery.
type Curl struct {
	opts   CurlOptions
	client *http.Client
}

var _ beamclaw.Tool = (*Curl)(nil)

// NewCurl returns the curl tool.
func NewCurl(opts CurlOptions) *Curl {
	opts.MaxResponseBytes = orInt(opts.MaxResponseBytes, DefaultCurlMaxResponseBytes)
	opts.Timeout = orDuration(opts.Timeout, DefaultCurlTimeout)
	opts.MaxRedirects = orInt(opts.MaxRedirects, 5)
	if opts.UserAgent == "" {
		opts.UserAgent = "beamclaw-curl"
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	check := opts.IPCheck
	if check == nil && !opts.AllowPrivate {
		check = CheckPublicIP
	}
	dialer := newGuardedDialer(check, opts.Resolver, 10*time.Second)
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would connect on our behalf, past the guard
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		DisableKeepAlives:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
	}
	c := &Curl{opts: opts}
	c.client = &http.Client{Transport: transport, CheckRedirect: c.checkRedirect}
	return c
}

// Spec implements beamclaw.Tool.
func (c *Curl) Spec() beamclaw.ToolSpec {
	return spec("curl", curlDesc, curlSchema, false, beamclaw.Supervised, beamclaw.RiskMedium)
}

func (c *Curl) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.opts.MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", c.opts.MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to unsupported scheme %q", req.URL.Scheme)
	}
	return nil
}

type curlArgs struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// Execute implements beamclaw.Tool.
func (c *Curl) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a curlArgs
	if err := decodeArgs("curl", inv.Args, &a); err != nil {
		return "", err
	}
	req, err := c.newRequest(ctx, a)
	if err != nil {
		return "", fmt.Errorf("curl: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	resp, err := c.client.Do(req.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("curl: %s", describeHTTPError(err))
	}
	defer resp.Body.Close()
	return c.format(resp)
}

func (c *Curl) newRequest(ctx context.Context, a curlArgs) (*http.Request, error) {
	u, err := url.Parse(a.URL)
	if err != nil {
		return nil, fmt.Errorf("bad url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("only http and https URLs are supported, not %q", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("url has no host")
	}
	method := a.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if a.Body != "" {
		body = strings.NewReader(a.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	for k, v := range a.Headers {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	return req, nil
}

// describeHTTPError keeps the guard's refusal readable for the model.
func describeHTTPError(err error) string {
	if errors.Is(err, ErrBlockedAddress) {
		var ue *url.Error
		if errors.As(err, &ue) {
			return fmt.Sprintf("request to %s refused: %v", ue.URL, ue.Err)
		}
	}
	return err.Error()
}

func (c *Curl) format(resp *http.Response) (string, error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s\n", resp.Proto, resp.Status)
	for _, h := range shownHeaders {
		if v := resp.Header.Get(h); v != "" {
			fmt.Fprintf(&sb, "%s: %s\n", h, v)
		}
	}
	sb.WriteString("\n")
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxResponseBytes+1))
	if err != nil {
		return sb.String(), fmt.Errorf("curl: read body: %w", err)
	}
	truncated := int64(len(data)) > c.opts.MaxResponseBytes
	if truncated {
		data = data[:c.opts.MaxResponseBytes]
	}
	if isBinary(data) {
		fmt.Fprintf(&sb, "[binary body of at least %d bytes not shown]", len(data))
		return sb.String(), nil
	}
	sb.Write(data)
	if truncated {
		fmt.Fprintf(&sb, "\n[body truncated at %d bytes]", c.opts.MaxResponseBytes)
	}
	return sb.String(), nil
}

func isBinary(b []byte) bool {
	head := b[:min(len(b), 8000)]
	for _, c := range head {
		if c == 0 {
			return true
		}
	}
	return false
}
