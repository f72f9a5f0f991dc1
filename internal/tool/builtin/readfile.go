package builtin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

const readFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "relative to the workspace; a directory lists it"},
    "offset": {"type": "integer", "minimum": 1, "description": "first line"},
    "limit": {"type": "integer", "minimum": 1, "description": "lines"}
  },
  "required": ["path"],
  "additionalProperties": false
}`

const readFileDesc = "Read a text file in the workspace, or a range of its lines."

// ReadFile reads text files confined to the workspace and roots.
type ReadFile struct{ opts FileOptions }

var _ beamclaw.Tool = (*ReadFile)(nil)

// NewReadFile returns the read_file tool.
func NewReadFile(opts FileOptions) *ReadFile { return &ReadFile{opts: opts.withDefaults()} }

// Spec implements beamclaw.Tool.
func (r *ReadFile) Spec() beamclaw.ToolSpec {
	return spec("read_file", readFileDesc, readFileSchema, false, beamclaw.ReadOnly, beamclaw.RiskLow)
}

// Execute implements beamclaw.Tool.
func (r *ReadFile) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	var a struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	if err := decodeArgs("read_file", inv.Args, &a); err != nil {
		return "", err
	}
	c, err := openConfined(inv.Workspace, r.opts.Roots, a.Path)
	if err != nil {
		return "", fmt.Errorf("read_file: %w", err)
	}
	defer c.Close()
	f, err := c.root.Open(c.rel)
	if err != nil {
		return "", c.explain("read_file", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", c.explain("read_file", err)
	}
	if fi.IsDir() {
		return listDir(c, f)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("read_file %q: not a regular file", a.Path)
	}
	if err := c.refuseHardLink("read_file", fi); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, r.opts.MaxReadBytes+1))
	if err != nil {
		return "", c.explain("read_file", err)
	}
	truncated := int64(len(data)) > r.opts.MaxReadBytes
	if truncated {
		data = data[:r.opts.MaxReadBytes]
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return "", fmt.Errorf("read_file %q: binary file (%d bytes); only text files can be read", a.Path, fi.Size())
	}
	out := sliceLines(string(data), a.Offset, a.Limit)
	if truncated {
		out += fmt.Sprintf("\n[file truncated: read %d of %d bytes]", r.opts.MaxReadBytes, fi.Size())
	}
	return out, nil
}

// sliceLines returns lines offset..offset+limit-1 (1-based) of s.
func sliceLines(s string, offset, limit int) string {
	if offset <= 1 && limit <= 0 {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start := max(offset, 1) - 1
	if start >= len(lines) {
		return fmt.Sprintf("[offset %d is past the end: the file has %d lines]", offset, len(lines))
	}
	end := len(lines)
	if limit > 0 {
		end = min(start+limit, end)
	}
	return strings.Join(lines[start:end], "")
}

// maxListed caps a directory listing.
const maxListed = 1000

// listDir lists a directory's entries, sorted, directories marked with '/'.
func listDir(c *confined, f *os.File) (string, error) {
	entries, err := f.ReadDir(-1)
	if err != nil {
		return "", c.explain("read_file", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	extra := ""
	if len(names) > maxListed {
		extra = fmt.Sprintf("\n[%d more entries not shown]", len(names)-maxListed)
		names = names[:maxListed]
	}
	if len(names) == 0 {
		return fmt.Sprintf("[directory %s is empty]", c.shown), nil
	}
	return strings.Join(names, "\n") + extra, nil
}
