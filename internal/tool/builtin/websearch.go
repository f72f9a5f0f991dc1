package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// DefaultBraveBaseURL is the Brave Search API root.
const DefaultBraveBaseURL = "https://api.search.brave.com/res/v1"

// WebSearchOptions configure the web_search tool.
type WebSearchOptions struct {
	// APIKey is the Brave Search subscription token
	// (tools.web_search.api_key, normally {env: BRAVE_API_KEY}).
	APIKey string
	// BaseURL is the API root (tools.web_search.base_url, default
	// DefaultBraveBaseURL); tests point it at a fake.
	BaseURL string
	// MaxResults caps count (tools.web_search.max_results, default 10).
	MaxResults int
	// HTTPClient sends the requests (default: a client with Timeout).
	HTTPClient *http.Client
	// Timeout bounds one search (default 15 s).
	Timeout time.Duration
}

const webSearchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 400},
    "count": {"type": "integer", "minimum": 1, "maximum": 20, "description": "default 5"}
  },
  "required": ["query"],
  "additionalProperties": false
}`

const webSearchDesc = "Search the web; returns titles, URLs and snippets."

// WebSearch queries the Brave Search API.
type WebSearch struct{ opts WebSearchOptions }

var _ beamclaw.Tool = (*WebSearch)(nil)

// NewWebSearch returns the web_search tool.
func NewWebSearch(opts WebSearchOptions) *WebSearch {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBraveBaseURL
	}
	opts.BaseURL = strings.TrimSuffix(opts.BaseURL, "/")
	opts.MaxResults = orInt(opts.MaxResults, DefaultWebSearchMaxResults)
	opts.Timeout = orDuration(opts.Timeout, 15*time.Second)
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: opts.Timeout}
	}
	return &WebSearch{opts: opts}
}

// Spec implements beamclaw.Tool.
func (w *WebSearch) Spec() beamclaw.ToolSpec {
	return spec("web_search", webSearchDesc, webSearchSchema, false, beamclaw.ReadOnly, beamclaw.RiskLow)
}

type braveResponse struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

// Execute implements beamclaw.Tool.
func (w *WebSearch) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a struct {
		Query string `json:"query"`
		Count int    `json:"count"`
	}
	if err := decodeArgs("web_search", inv.Args, &a); err != nil {
		return "", err
	}
	if w.opts.APIKey == "" {
		return "", errors.New("web_search is not configured: set tools.web_search.api_key (e.g. {env: BRAVE_API_KEY})")
	}
	if strings.TrimSpace(a.Query) == "" {
		return "", errors.New("web_search: query is empty")
	}
	count := a.Count
	if count <= 0 {
		count = 5
	}
	count = min(count, w.opts.MaxResults)
	ctx, cancel := context.WithTimeout(ctx, w.opts.Timeout)
	defer cancel()
	res, err := w.search(ctx, a.Query, count)
	if err != nil {
		return "", fmt.Errorf("web_search: %w", err)
	}
	return formatResults(a.Query, res), nil
}

func (w *WebSearch) search(ctx context.Context, query string, count int) (*braveResponse, error) {
	q := url.Values{"q": {query}, "count": {strconv.Itoa(count)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.opts.BaseURL+"/web/search?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", w.opts.APIKey)
	resp, err := w.opts.HTTPClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is ours, not news to the model
		}
		return nil, fmt.Errorf("request failed: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return nil, fmt.Errorf("the search API rejected the key (HTTP %d)", resp.StatusCode)
		case http.StatusTooManyRequests:
			return nil, errors.New("rate limited by the search API (HTTP 429); try again later")
		}
		return nil, fmt.Errorf("search API answered HTTP %d", resp.StatusCode)
	}
	var out braveResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode search results: %w", err)
	}
	return &out, nil
}

func formatResults(query string, res *braveResponse) string {
	if len(res.Web.Results) == 0 {
		return fmt.Sprintf("No results for %q.", query)
	}
	var sb strings.Builder
	for i, r := range res.Web.Results {
		if i > 0 {
			sb.WriteString("\n")
		}
		fmt.Fprintf(&sb, "%d. %s\n   %s\n", i+1, plainText(r.Title), r.URL)
		if d := plainText(r.Description); d != "" {
			fmt.Fprintf(&sb, "   %s\n", d)
		}
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// markup matches the inline tags Brave puts in titles and descriptions.
var markup = regexp.MustCompile(`</?[a-zA-Z][^<>]*>`)

// plainText drops inline markup and decodes HTML entities.
func plainText(s string) string {
	return strings.TrimSpace(html.UnescapeString(markup.ReplaceAllString(s, "")))
}
