package builtin

import (
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting"
	"github.com/beamclaw/beamclaw-go/internal/setting/settingtest"
)

// The tools section's defaults are the ones the tools apply to zero
// options (curl's body cap once said 64 KiB here and 1 MiB in config).
func TestDefaultConfigIsTheDefaults(t *testing.T) {
	s := DefaultConfig().Settings(func(string) string { return "" })
	settingtest.DefaultsAgree(t, s.Tools.Curl, NewCurl(CurlOptions{}).opts)
	settingtest.DefaultsAgree(t, s.Tools.WebSearch, NewWebSearch(WebSearchOptions{}).opts)
	settingtest.DefaultsAgree(t, s.Tools.Process, NewBash(ProcessOptions{}).opts)
}

// tools.max_output_bytes is both what the registry keeps and what a
// process's capture holds; the page sizes reach the loop's Paging.
func TestSettingsOfOneKey(t *testing.T) {
	c := DefaultConfig()
	c.MaxOutputBytes, c.PageBytes, c.PageBytesPerTool = 5<<20, 8192, map[string]int{"bash": 16384}
	s := c.Settings(func(string) string { return "" })
	if s.Registry.MaxOutputBytes != 5<<20 || s.Tools.Process.MaxOutputBytes != 5<<20 {
		t.Errorf("registry keeps %d, a process captures %d", s.Registry.MaxOutputBytes, s.Tools.Process.MaxOutputBytes)
	}
	if s.Paging.Bytes != 8192 || s.Paging.For("bash", 0) != 16384 {
		t.Errorf("paging %+v", s.Paging)
	}
}

func TestValidatePageBytes(t *testing.T) {
	for _, tc := range []struct {
		page    int
		perTool map[string]int
		want    string
	}{
		{0, nil, ""},
		{4096, map[string]int{"bash": 65536}, ""},
		{100, nil, "page_bytes: must be between 1024 and 4194304"},
		{0, map[string]int{"bash": 5 << 20}, "page_bytes_per_tool.bash: must be between 1024 and 4194304"},
	} {
		c := DefaultConfig()
		c.PageBytes, c.PageBytesPerTool = tc.page, tc.perTool
		var p setting.Problems
		c.Validate(&p)
		got := ""
		if err := p.Err(); err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("page_bytes %d, per tool %v: %q, want %q", tc.page, tc.perTool, got, tc.want)
		}
	}
}
