package builtin

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// The tools section's defaults are the ones the tools apply to zero
// options (curl's body cap once said 64 KiB here and 1 MiB in config).
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	s := DefaultConfig().Settings(func(string) string { return "" })
	settingtest.DefaultsAgree(t, s.Tools.Curl, NewCurl(CurlOptions{}).opts)
	settingtest.DefaultsAgree(t, s.Tools.WebSearch, NewWebSearch(WebSearchOptions{}).opts)
}
