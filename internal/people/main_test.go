package people

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/test/leak"
)

func TestMain(m *testing.M) { leak.VerifyTestMain(m) }
