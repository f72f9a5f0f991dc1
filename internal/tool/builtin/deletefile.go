package builtin

import (
	"context"
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

const deleteFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1}
  },
  "required": ["path"],
  "additionalProperties": false
}`

const deleteFileDesc = "Delete one file (not a directory) in the workspace."

// DeleteFile deletes files confined to the workspace and roots.
type DeleteFile struct{ opts FileOptions }

var _ beamclaw.Tool = (*DeleteFile)(nil)

// NewDeleteFile returns the delete_file tool.
func NewDeleteFile(opts FileOptions) *DeleteFile { return &DeleteFile{opts: opts.withDefaults()} }

// Spec implements beamclaw.Tool.
func (d *DeleteFile) Spec() beamclaw.ToolSpec {
	return spec("delete_file", deleteFileDesc, deleteFileSchema, true, beamclaw.Supervised, beamclaw.RiskHigh)
}

// Execute implements beamclaw.Tool.
func (d *DeleteFile) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decodeArgs("delete_file", inv.Args, &a); err != nil {
		return "", err
	}
	c, err := openConfined(inv.Workspace, d.opts.Roots, a.Path)
	if err != nil {
		return "", fmt.Errorf("delete_file: %w", err)
	}
	defer c.Close()
	if err := c.refuseSymlink("delete_file"); err != nil {
		return "", err
	}
	fi, err := c.root.Lstat(c.rel)
	if err != nil {
		return "", c.explain("delete_file", err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("delete_file %q: is a directory; only files are deleted", a.Path)
	}
	if err := c.root.Remove(c.rel); err != nil {
		return "", c.explain("delete_file", err)
	}
	return "deleted " + a.Path, nil
}
