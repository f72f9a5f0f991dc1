package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestPairCommands(t *testing.T) {
	pairs := protocol.PairingList{
		Pending: []protocol.PairingRequest{{Channel: "telegram", UserID: "42", Name: "ann",
			CreatedAt: "2026-01-02T03:04:05Z", ExpiresAt: "2026-01-02T04:04:05Z"}},
		Approved: []protocol.Peer{{Channel: "telegram", UserID: "7", Agent: "work", ApprovedAt: "2026-01-01T00:00:00Z"},
			{Channel: "telegram", UserID: "8", Name: "bo", ApprovedAt: "2026-01-01T00:00:00Z"}},
	}
	tests := []struct {
		name        string
		args        []string
		pairs       protocol.PairingList
		peer        protocol.Peer
		err         error
		wantCode    int
		wantOut     []string
		wantErr     []string
		wantCalls   []string
		wantApprove protocol.PairApproveRequest
		wantRevoke  protocol.PairRevokeRequest
	}{
		{name: "bare pair lists", args: []string{"pair"}, pairs: pairs, wantCalls: []string{"pairlist"},
			wantOut: []string{"PENDING", "CHANNEL   USER ID  NAME  REQUESTED", "telegram  42       ann", "APPROVED",
				"telegram  7        -     work", "telegram  8        bo    (default)"}},
		{name: "list empty", args: []string{"pair", "list"}, wantCalls: []string{"pairlist"},
			wantOut: []string{"no pending pairing requests", "no approved peers"}},
		{name: "approve", args: []string{"pair", "telegram", "abcd-2345", "--agent", "work"},
			peer:        protocol.Peer{Channel: "telegram", UserID: "42", Name: "ann", Agent: "work"},
			wantApprove: protocol.PairApproveRequest{Channel: "telegram", Code: "abcd-2345", Agent: "work"},
			wantOut:     []string{"approved telegram user 42 (ann); they talk to agent work"}},
		{name: "approve default agent", args: []string{"pair", "telegram", "ABCD2345"},
			peer:        protocol.Peer{Channel: "telegram", UserID: "42"},
			wantApprove: protocol.PairApproveRequest{Channel: "telegram", Code: "ABCD2345"},
			wantOut:     []string{"approved telegram user 42; they talk to the channel's default agent"}},
		{name: "approve unknown code", args: []string{"pair", "telegram", "NOPE"}, err: errString("no pending pairing request has that code"),
			wantApprove: protocol.PairApproveRequest{Channel: "telegram", Code: "NOPE"},
			wantCode:    1, wantErr: []string{"beamclaw: no pending pairing request has that code"}},
		{name: "one argument is wrong", args: []string{"pair", "telegram"}, wantCode: 1, wantErr: []string{"want CHANNEL CODE"}},
		{name: "revoke", args: []string{"pair", "revoke", "telegram", "7"},
			wantRevoke: protocol.PairRevokeRequest{Channel: "telegram", UserID: "7"}, wantOut: []string{"revoked telegram user 7"}},
		{name: "revoke needs two args", args: []string{"pair", "revoke", "telegram"}, wantCode: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBackend{pairs: tc.pairs, peer: tc.peer, err: tc.err}
			r := run(t, f, "", tc.args...)
			r.want(t, tc.wantCode, tc.wantOut, tc.wantErr)
			wantCalls(t, tc.wantCalls, f.calls)
			if diff := cmp.Diff(tc.wantApprove, f.lastApprove); diff != "" {
				t.Errorf("approve (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRevoke, f.lastRevoke); diff != "" {
				t.Errorf("revoke (-want +got):\n%s", diff)
			}
		})
	}
}
