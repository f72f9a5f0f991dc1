package a2a

import (
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// answerArtifact names the artifact that carries the agent's answer.
const answerArtifact = "answer"

// metaKey is the message-metadata key of what beamclaw adds to an
// input-required status (the approval asked for).
const metaKey = "beamclaw"

// translator turns one execution's run events into A2A events.
type translator struct {
	info    a2a.TaskInfo
	run     *liveRun
	now     func() time.Time
	working bool // the working status was sent in this execution
	// quiet is for a blocking SendMessage: nobody hears of its task
	// before the task ends or asks for input, and each event costs the
	// SDK a few deep copies of the task (encoding/gob) and a store
	// update. So the execution says nothing until then, and then one
	// thing: the task as it stands (created, answered or failed, or
	// waiting for input), written to disk once.
	quiet bool
	task  *a2a.Task // the new task, not yet told (quiet)
}

// events returns the A2A events of ev, and whether the execution ends
// with them (a terminal state or input-required).
func (t *translator) events(ev beamclaw.RunEvent) ([]a2a.Event, bool) {
	if t.quiet {
		return t.quietEvents(ev)
	}
	switch ev.Type {
	case beamclaw.EvState:
		if t.working {
			return nil, false
		}
		t.working = true
		return []a2a.Event{t.status(a2a.TaskStateWorking, nil)}, false
	case beamclaw.EvChunk:
		if ev.Text == "" || t.quiet {
			return nil, false
		}
		return []a2a.Event{t.chunk(ev.Text)}, false
	case beamclaw.EvApprovalRequest:
		if ev.Approval == nil {
			return nil, false
		}
		return []a2a.Event{t.status(a2a.TaskStateInputRequired, approvalMessage(t.info, ev.Approval))}, true
	case beamclaw.EvFinal:
		return t.final(ev.Text), true
	case beamclaw.EvError:
		return []a2a.Event{t.status(a2a.TaskStateFailed, agentMessage(t.info, ev.Text))}, true
	}
	return nil, false
}

// status is a status update stamped with the edge's clock.
func (t *translator) status(st a2a.TaskState, msg *a2a.Message) *a2a.TaskStatusUpdateEvent {
	e := a2a.NewStatusUpdateEvent(t.info, st, msg)
	at := t.now()
	e.Status.Timestamp = &at
	return e
}

// chunk appends streamed text to the answer artifact (creating it first).
func (t *translator) chunk(text string) *a2a.TaskArtifactUpdateEvent {
	id, exists := t.run.artifactID()
	if exists {
		return a2a.NewArtifactUpdateEvent(t.info, id, a2a.NewTextPart(text))
	}
	e := a2a.NewArtifactEvent(t.info, a2a.NewTextPart(text))
	e.Artifact.ID, e.Artifact.Name = id, answerArtifact
	return e
}

// final replaces the streamed answer with the run's final text (the chunks
// may include text of earlier tool rounds) and completes the task.
func (t *translator) final(text string) []a2a.Event {
	var out []a2a.Event
	var msg *a2a.Message
	if text != "" {
		id, _ := t.run.artifactID()
		e := a2a.NewArtifactEvent(t.info, a2a.NewTextPart(text))
		e.Artifact.ID, e.Artifact.Name, e.LastChunk = id, answerArtifact, true
		out = append(out, e)
		msg = agentMessage(t.info, text)
	}
	return append(out, t.status(a2a.TaskStateCompleted, msg))
}

// quietEvents is events for a quiet execution: the task once, when it
// ends or asks for input.
func (t *translator) quietEvents(ev beamclaw.RunEvent) ([]a2a.Event, bool) {
	switch ev.Type {
	case beamclaw.EvApprovalRequest:
		if ev.Approval == nil {
			return nil, false
		}
		return []a2a.Event{t.snapshot(a2a.TaskStateInputRequired, approvalMessage(t.info, ev.Approval), "")}, true
	case beamclaw.EvFinal:
		var msg *a2a.Message
		if ev.Text != "" {
			msg = agentMessage(t.info, ev.Text)
		}
		return []a2a.Event{t.snapshot(a2a.TaskStateCompleted, msg, ev.Text)}, true
	case beamclaw.EvError:
		return []a2a.Event{t.snapshot(a2a.TaskStateFailed, agentMessage(t.info, ev.Text), "")}, true
	}
	return nil, false
}

// snapshot is the new task in state st, with answer as its artifact.
func (t *translator) snapshot(st a2a.TaskState, msg *a2a.Message, answer string) *a2a.Task {
	at := t.now()
	out := &a2a.Task{ID: t.task.ID, ContextID: t.task.ContextID, Metadata: t.task.Metadata,
		History: slices.Clone(t.task.History), Status: a2a.TaskStatus{State: st, Message: msg, Timestamp: &at}}
	if answer != "" {
		id, _ := t.run.artifactID()
		out.Artifacts = []*a2a.Artifact{{ID: id, Name: answerArtifact, Parts: a2a.ContentParts{a2a.NewTextPart(answer)}}}
	}
	return out
}

// approvalMessage asks the peer about a tool call; metadata carries the
// request for programs (the prompt says it for people and models).
func approvalMessage(info a2a.TaskInfo, req *beamclaw.ApprovalRequest) *a2a.Message {
	m := agentMessage(info, req.Prompt+" (Answer on this task: yes, no or always.)")
	m.Metadata = map[string]any{metaKey: map[string]any{
		"approval_id": req.ID, "tool": req.ToolName, "risk": req.Risk,
	}}
	return m
}

// settle applies a run's last events to t, for a run that ended while no
// execution relayed it: the answer artifact and the terminal status.
func settle(t *a2a.Task, evs []beamclaw.RunEvent, artifact a2a.ArtifactID, now time.Time) bool {
	if t.Status.Message != nil { // as the SDK does: the replaced status message joins the history
		t.History = append(t.History, t.Status.Message)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		ev := evs[i]
		switch ev.Type {
		case beamclaw.EvFinal:
			status := a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &now}
			if ev.Text != "" {
				status.Message = agentMessage(t, ev.Text)
				setAnswer(t, artifact, ev.Text)
			}
			t.Status = status
			return true
		case beamclaw.EvError:
			t.Status = a2a.TaskStatus{State: a2a.TaskStateFailed, Timestamp: &now, Message: agentMessage(t, ev.Text)}
			return true
		}
	}
	return false
}

// setAnswer puts text in the task's answer artifact.
func setAnswer(t *a2a.Task, id a2a.ArtifactID, text string) {
	if id == "" {
		id = a2a.NewArtifactID()
	}
	art := &a2a.Artifact{ID: id, Name: answerArtifact, Parts: a2a.ContentParts{a2a.NewTextPart(text)}}
	for i, a := range t.Artifacts {
		if a.ID == id {
			t.Artifacts[i] = art
			return
		}
	}
	t.Artifacts = append(t.Artifacts, art)
}
