// Package sandbox holds the files of the code-sandbox image (Dockerfile,
// runner, tool-bridge clients), embedded into the binary so that
// `beamclaw sandbox build` works without the source tree. Only
// internal/sandbox imports it; it exists because go:embed cannot reach a
// parent directory.
package sandbox

import (
	"embed"
	"io/fs"
)

// Files are the build context of the image's top layer.
//
//go:embed Dockerfile runner.py beamclaw_tools.py beamclaw-tools
var Files embed.FS

// Mode is the file mode a file of Files is installed with.
func Mode(name string) fs.FileMode {
	if name == "beamclaw-tools" {
		return 0o755
	}
	return 0o644
}
