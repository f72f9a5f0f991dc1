package supervise

import (
	"errors"
	"fmt"

	"github.com/thejerf/suture/v4"
)

// NoRestart marks err so the supervisor removes the service instead of
// restarting it: the service is done, for good, and said why.
func NoRestart(err error) error {
	if err == nil {
		err = errors.New("stopped")
	}
	return fmt.Errorf("%w: %w", suture.ErrDoNotRestart, err)
}

// Fatal marks err so the supervisor tree the service runs under stops and
// returns err to its parent. At the root, the daemon exits non-zero with err.
func Fatal(err error) error {
	if err == nil {
		err = errors.New("fatal")
	}
	return fmt.Errorf("%w: %w", suture.ErrTerminateSupervisorTree, err)
}

// IsFatal reports whether err carries Fatal's mark.
func IsFatal(err error) bool { return errors.Is(err, suture.ErrTerminateSupervisorTree) }

// IsNoRestart reports whether err carries NoRestart's mark.
func IsNoRestart(err error) bool { return errors.Is(err, suture.ErrDoNotRestart) }

// PanicError is what a recovered panic becomes.
type PanicError struct {
	Service string
	Value   any
	Stack   []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("service %s panicked: %v", e.Service, e.Value)
}
