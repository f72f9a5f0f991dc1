package builtin_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// mapSkills is a builtin.SkillReader over a map: agent/name → text.
type mapSkills map[string]string

func (m mapSkills) SkillText(_ context.Context, agent, name string) (string, error) {
	if text, ok := m[agent+"/"+name]; ok {
		return text, nil
	}
	return "", errors.New("no skill named " + name)
}

func TestSkillTool(t *testing.T) {
	tl := builtin.NewSkill(builtin.SkillOptions{Reader: mapSkills{"main/tea": "# Tea\nBoil water."}})
	cases := []struct {
		name  string
		args  map[string]any
		want  string
		isErr bool
	}{
		{"loads", map[string]any{"name": "tea"}, "Boil water.", false},
		{"unknown", map[string]any{"name": "coffee"}, "skill coffee: no skill named coffee", true},
		{"needs a name", map[string]any{}, `argument "name": required`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, t.Context(), tl, "", tc.args)
			if res.IsError != tc.isErr || !strings.Contains(res.Content, tc.want) {
				t.Errorf("result = %+v, want error=%v containing %q", res, tc.isErr, tc.want)
			}
		})
	}
}
