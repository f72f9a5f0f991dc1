package agent

import (
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
)

// Files is the agents' workspace files as the workspace_memory tool
// reads and writes them (builtin.Workspace). Under memory_scope: user a
// run's USER.md and MEMORY.md writes and its daily logs are its user's
// own; reading USER.md or MEMORY.md gives the agent's shared file and,
// after it, the user's own.
func (a *Runtime) Files() builtin.Workspace { return workspaceFiles{a} }

// workspaceFiles adapts the workspace store to builtin.Workspace.
type workspaceFiles struct{ a *Runtime }

// own returns the user whose own copy of file a run of user at agent
// touches ("" for the agent's file).
func (w workspaceFiles) own(agent, user, file string) string {
	if !workspace.IsUserFile(file) {
		return ""
	}
	return w.a.memoryUser(agent, user)
}

func (w workspaceFiles) ReadFile(agent, user, file string) (string, error) {
	text, err := w.a.ws.ReadFile(agent, file)
	if beamclaw.KindOf(err) == beamclaw.KindNotFound {
		text, err = "", nil
	}
	owner := w.own(agent, user, file)
	if err != nil || owner == "" {
		return text, err
	}
	mine, err := w.a.ws.ReadUserFile(agent, owner, file)
	if err != nil || strings.TrimSpace(mine) == "" {
		return text, err
	}
	if strings.TrimSpace(text) != "" {
		text = strings.TrimRight(text, "\n") + "\n\n# This user's own " + file + " (only they see it)\n\n"
	}
	return text + mine, nil
}
func (w workspaceFiles) WriteFile(agent, user, file, content string) error {
	if owner := w.own(agent, user, file); owner != "" {
		return w.a.ws.WriteUserFile(agent, owner, file, content)
	}
	return w.a.ws.WriteFile(agent, file, content)
}
func (w workspaceFiles) AppendFile(agent, user, file, content string) error {
	if owner := w.own(agent, user, file); owner != "" {
		return w.a.ws.AppendUserFile(agent, owner, file, content)
	}
	return w.a.ws.AppendFile(agent, file, content)
}
func (w workspaceFiles) AppendDaily(agent, user string, date time.Time, text string) error {
	return w.a.ws.AppendDaily(agent, w.a.memoryUser(agent, user), date.Format(workspace.DateLayout), text)
}
func (w workspaceFiles) ReadDaily(agent, user string, date time.Time) (string, error) {
	return w.a.ws.ReadDaily(agent, w.a.memoryUser(agent, user), date.Format(workspace.DateLayout))
}
func (w workspaceFiles) ListDaily(agent, user string) ([]string, error) {
	return w.a.ws.ListDaily(agent, w.a.memoryUser(agent, user))
}
