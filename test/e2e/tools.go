//go:build tools

package e2e

import _ "github.com/a2aproject/a2a-go/v2/cmd/a2a"
