package cluster

import (
	"os"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/leak"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(nodeEnv); spec != "" {
		runProcNode(spec) // a child: procNode
	}
	leak.VerifyTestMain(m)
}
