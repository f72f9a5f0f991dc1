package workspace

import (
	"embed"
	"fmt"
)

//go:embed templates/*.md
var templateFS embed.FS

// Template returns the default content of a workspace file.
func Template(file string) (string, error) {
	if err := ValidFile(file); err != nil {
		return "", err
	}
	b, err := templateFS.ReadFile("templates/" + file)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", file, err)
	}
	return string(b), nil
}
