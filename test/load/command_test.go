package load

import (
	"context"
	"io"
	"os"
	"slices"
	"testing"
)

func TestMainRunsWithTheArguments(t *testing.T) {
	ran := false
	Main("test", func(ctx context.Context, args []string, stdout io.Writer) error {
		ran = true
		if ctx.Err() != nil || !slices.Equal(args, os.Args[1:]) || stdout != os.Stdout {
			t.Errorf("run got ctx err %v, args %q, stdout %v", ctx.Err(), args, stdout)
		}
		return nil
	})
	if !ran {
		t.Error("Main did not call run")
	}
}
