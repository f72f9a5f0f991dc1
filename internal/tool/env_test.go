package tool_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func TestFilterEnv(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/a", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "TZ=UTC",
		"USER=a", "TMPDIR=/tmp", "OPENAI_API_KEY=sk-x", "TELEGRAM_BOT_TOKEN=1:x",
		"TELEGRAM_WEBHOOK_SECRET=s", "DB_PASSWORD=p", "AWS_REGION=eu", "EDITOR=vi",
		"GITHUB_TOKEN=g", "MY_TOOL_HOME=/opt", "broken", "=x",
	}
	tests := []struct {
		name  string
		allow []string
		deny  []string
		want  []string
	}{
		{"defaults", nil, nil, []string{"PATH=/usr/bin", "HOME=/home/a", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "TZ=UTC", "USER=a", "TMPDIR=/tmp"}},
		{"allow adds", []string{"EDITOR", "MY_*"}, nil, []string{"PATH=/usr/bin", "HOME=/home/a", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "TZ=UTC", "USER=a", "TMPDIR=/tmp", "EDITOR=vi", "MY_TOOL_HOME=/opt"}},
		{"secrets win over allow", []string{"*"}, nil, []string{"PATH=/usr/bin", "HOME=/home/a", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "TZ=UTC", "USER=a", "TMPDIR=/tmp", "EDITOR=vi", "MY_TOOL_HOME=/opt"}},
		{"deny wins over defaults", nil, []string{"home", "LC_*"}, []string{"PATH=/usr/bin", "LANG=C.UTF-8", "TERM=xterm", "TZ=UTC", "USER=a", "TMPDIR=/tmp"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tool.FilterEnv(environ, tc.allow, tc.deny)); diff != "" {
				t.Errorf("FilterEnv (-want +got):\n%s", diff)
			}
		})
	}
}
