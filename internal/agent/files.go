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
// touches ("" for the agent's file); errNoUser for a user file of a run
// without a user under memory_scope: user.
func (w workspaceFiles) own(agent, user, file string) (string, error) {
	if !workspace.IsUserFile(file) {
		return "", nil
	}
	return w.a.memoryUser(agent, user)
}

// SharedMemory implements builtin.Workspace (memory_scope: agent).
func (w workspaceFiles) SharedMemory(agent string) bool { return w.a.shared[agent] }

func (w workspaceFiles) ReadFile(agent, user, file string) (string, error) {
	text, err := w.a.ws.ReadFile(agent, file)
	if beamclaw.KindOf(err) == beamclaw.KindNotFound {
		text, err = "", nil
	}
	owner, nobody := w.own(agent, user, file)
	if err != nil || owner == "" || nobody != nil {
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
	owner, err := w.own(agent, user, file)
	switch {
	case err != nil:
		return err
	case owner != "":
		return w.a.ws.WriteUserFile(agent, owner, file, content)
	}
	return w.a.ws.WriteFile(agent, file, content)
}
func (w workspaceFiles) AppendFile(agent, user, file, content string) error {
	owner, err := w.own(agent, user, file)
	switch {
	case err != nil:
		return err
	case owner != "":
		return w.a.ws.AppendUserFile(agent, owner, file, content)
	}
	return w.a.ws.AppendFile(agent, file, content)
}
func (w workspaceFiles) AppendDaily(agent, user string, date time.Time, text string) error {
	owner, err := w.a.memoryUser(agent, user)
	if err != nil {
		return err
	}
	return w.a.ws.AppendDaily(agent, owner, date.Format(workspace.DateLayout), text)
}
func (w workspaceFiles) ReadDaily(agent, user string, date time.Time) (string, error) {
	owner, err := w.a.memoryUser(agent, user)
	if err != nil {
		return "", nil // nobody's daily log: empty
	}
	return w.a.ws.ReadDaily(agent, owner, date.Format(workspace.DateLayout))
}
func (w workspaceFiles) ListDaily(agent, user string) ([]string, error) {
	owner, err := w.a.memoryUser(agent, user)
	if err != nil {
		return nil, nil
	}
	return w.a.ws.ListDaily(agent, owner)
}
