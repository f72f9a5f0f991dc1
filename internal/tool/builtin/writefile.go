package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

const writeFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "relative to the workspace"},
    "content": {"type": "string"},
    "append": {"type": "boolean"}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`

const writeFileDesc = "Write or append to a file in the workspace."

// WriteFile writes text files confined to the workspace and roots.
type WriteFile struct{ opts FileOptions }

var _ beamclaw.Tool = (*WriteFile)(nil)

// NewWriteFile returns the write_file tool.
func NewWriteFile(opts FileOptions) *WriteFile { return &WriteFile{opts: opts.withDefaults()} }

// Spec implements beamclaw.Tool.
func (w *WriteFile) Spec() beamclaw.ToolSpec {
	return spec("write_file", writeFileDesc, writeFileSchema, true, beamclaw.Supervised, beamclaw.RiskMedium)
}

// Execute implements beamclaw.Tool.
func (w *WriteFile) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
		Append  bool   `json:"append"`
	}
	if err := decodeArgs("write_file", inv.Args, &a); err != nil {
		return "", err
	}
	if len(a.Content) > w.opts.MaxWriteBytes {
		return "", fmt.Errorf("write_file: content is %d bytes, over the %d byte limit", len(a.Content), w.opts.MaxWriteBytes)
	}
	c, err := openConfined(inv.Workspace, w.opts.Roots, a.Path)
	if err != nil {
		return "", fmt.Errorf("write_file: %w", err)
	}
	defer c.Close()
	if c.rel == "." {
		return "", fmt.Errorf("write_file %q: is a directory", a.Path)
	}
	if err := c.refuseSymlink("write_file"); err != nil {
		return "", err
	}
	if dir := filepath.Dir(c.rel); dir != "." {
		if err := c.root.MkdirAll(dir, 0o755); err != nil {
			return "", c.explain("write_file", err)
		}
	}
	verb := "wrote"
	if a.Append {
		verb = "appended"
	}
	if err := writeConfined(c, a.Content, a.Append); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %d bytes to %s", verb, len(a.Content), a.Path), nil
}

// writeConfined opens the file without truncating it, refuses it when it
// has other names (checked on the open file, so a link swapped in after a
// check cannot slip through), then truncates unless appending and writes.
func writeConfined(c *confined, content string, appending bool) error {
	flags := os.O_WRONLY | os.O_CREATE
	if appending {
		flags |= os.O_APPEND
	}
	f, err := c.root.OpenFile(c.rel, flags, 0o644)
	if err != nil {
		return c.explain("write_file", err)
	}
	err = writeOpened(c, f, content, appending)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = c.explain("write_file", cerr)
	}
	return err
}

func writeOpened(c *confined, f *os.File, content string, appending bool) error {
	fi, err := f.Stat()
	if err != nil {
		return c.explain("write_file", err)
	}
	if err := c.refuseHardLink("write_file", fi); err != nil {
		return err
	}
	if !appending {
		if err := f.Truncate(0); err != nil {
			return c.explain("write_file", err)
		}
	}
	if _, err := f.WriteString(content); err != nil {
		return c.explain("write_file", err)
	}
	return nil
}
