package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"sort"
	"strings"

	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/client"

	imagefiles "github.com/beamclaw/beamclaw-go/docker/sandbox"
	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Image labels.
const (
	LabelContent = "beamclaw.sandbox.content" // on the image: ImageContentHash of what built it
	labelBase    = "beamclaw.sandbox.base"    // on the base image: its recipe hash
)

// debianSuite is the Debian release of the image.
const debianSuite = "bookworm"

// BuildOptions configure BuildImage.
type BuildOptions struct {
	Image      string // default DefaultImage
	Mirror     string // apt mirror for mmdebstrap (default: its own, deb.debian.org)
	Force      bool   // rebuild even when the labels say it is up to date
	DockerHost string // as Options.DockerHost
	Mmdebstrap string // the mmdebstrap binary (default: looked up on PATH)
}

// BuildResult says what BuildImage did.
type BuildResult struct {
	Image     string
	ImageID   string
	Content   string // the content hash (label beamclaw.sandbox.content)
	Built     bool   // false: it was up to date and nothing was done
	Base      string // the base image (beamclaw-sandbox-base:<hash>)
	BaseBuilt bool   // the base rootfs was (re)built with mmdebstrap
}

// baseRecipe is the mmdebstrap command line of the base rootfs, minus
// the mirror; its hash names the base image.
func baseRecipe(suite string) []string {
	return []string{
		"--variant=minbase", "--include=python3,ca-certificates",
		"--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/info/*",
		"--dpkgopt=path-exclude=/usr/share/locale/*", "--dpkgopt=path-exclude=/usr/share/doc/*",
		"--dpkgopt=path-include=/usr/share/doc/*/copyright",
		suite, "-",
	}
}

func hashStrings(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func baseHash(suite string) string {
	return hashStrings(append([]string{"beamclaw-sandbox-base/1"}, baseRecipe(suite)...)...)
}

// ImageContentHash is the hash of everything that goes into the image
// (the base recipe and the files of docker/sandbox); BuildImage labels the
// image with it, and Check compares it.
func ImageContentHash() string {
	parts := []string{"beamclaw-sandbox/1", baseHash(debianSuite)}
	names, _ := fs.Glob(imagefiles.Files, "*")
	sort.Strings(names)
	for _, n := range names {
		data, _ := fs.ReadFile(imagefiles.Files, n)
		parts = append(parts, n, imagefiles.Mode(n).String(), string(data))
	}
	return hashStrings(parts...)
}

// BuildImage builds the sandbox image locally, writing progress to
// progress: a base image from mmdebstrap (minimal Debian with python3,
// imported into the engine; kept and reused while its recipe is the
// same), then the runner and the tool-bridge clients on top (the files of
// docker/sandbox, embedded in the binary). An image whose content label
// matches is left alone, so a second build with nothing changed takes a
// moment. Needs a reachable engine, and mmdebstrap (apt-get install
// mmdebstrap; run as root or with uidmap for its unshare mode) only when
// the base is missing.
func BuildImage(ctx context.Context, opts BuildOptions, progress io.Writer) (BuildResult, error) {
	const op = "sandbox.BuildImage"
	if opts.Image == "" {
		opts.Image = DefaultImage
	}
	if progress == nil {
		progress = io.Discard
	}
	c, err := newEngine(opts.DockerHost)
	if err != nil {
		return BuildResult{}, err
	}
	defer c.Close()
	if err := pingEngine(ctx, c, op); err != nil {
		return BuildResult{}, err
	}
	res := BuildResult{Image: opts.Image, Content: ImageContentHash()}
	res.Base = "beamclaw-sandbox-base:" + baseHash(debianSuite)[:16]
	id, labels, ok, err := imageLabels(ctx, c, opts.Image)
	if err != nil {
		return res, err
	}
	if ok && labels[LabelContent] == res.Content && !opts.Force {
		fmt.Fprintf(progress, "sandbox image %s is up to date (%s)\n", opts.Image, shortID(id))
		res.ImageID = id
		return res, nil
	}
	if _, _, ok, err := imageLabels(ctx, c, res.Base); err != nil {
		return res, err
	} else if !ok || opts.Force {
		if err := buildBase(ctx, c, opts, res.Base, progress); err != nil {
			return res, err
		}
		res.BaseBuilt = true
	}
	fmt.Fprintf(progress, "building %s on %s\n", opts.Image, res.Base)
	if err := buildTop(ctx, c, opts.Image, res.Base, res.Content, progress); err != nil {
		return res, beamclaw.E(op, beamclaw.KindInternal, "building the sandbox image failed", err)
	}
	old := id
	if id, _, _, err = imageLabels(ctx, c, opts.Image); err != nil {
		return res, err
	}
	if old != "" && old != id {
		// The previous build is untagged now; an image still used by a
		// container stays until the reaper removed the container.
		_, _ = c.ImageRemove(ctx, old, client.ImageRemoveOptions{PruneChildren: true})
	}
	res.ImageID, res.Built = id, true
	fmt.Fprintf(progress, "sandbox image %s built (%s)\n", opts.Image, shortID(id))
	return res, nil
}

// buildBase runs mmdebstrap into the engine's image import.
func buildBase(ctx context.Context, c *client.Client, opts BuildOptions, ref string, progress io.Writer) error {
	const op = "sandbox.BuildImage"
	bin := opts.Mmdebstrap
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("mmdebstrap"); err != nil {
			return beamclaw.E(op, beamclaw.KindUnavailable,
				"mmdebstrap is needed to build the sandbox's Debian base: apt-get install mmdebstrap", err)
		}
	}
	args := baseRecipe(debianSuite)
	if opts.Mirror != "" {
		args = append(args, opts.Mirror)
	}
	fmt.Fprintf(progress, "building the base rootfs: %s %s\n", bin, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, bin, args...)
	var tail tailBuffer
	cmd.Stderr = io.MultiWriter(progress, &tail)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("mmdebstrap pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return beamclaw.E(op, beamclaw.KindUnavailable, "mmdebstrap could not start", err)
	}
	// The import sees EOF only once mmdebstrap succeeded: a failed run
	// aborts the upload instead of importing a truncated rootfs.
	src := &waitReader{r: out, wait: cmd.Wait, kill: func() error { return cmd.Process.Kill() }}
	name, tag, _ := strings.Cut(ref, ":")
	body, err := c.ImageImport(ctx, client.ImageImportSource{Source: src, SourceName: "-"}, name+":"+tag,
		client.ImageImportOptions{Changes: []string{"LABEL " + labelBase + "=" + tag}})
	if err == nil {
		err = copyJSONStream(body, progress)
		body.Close()
	}
	if werr := src.finish(); werr != nil {
		return beamclaw.E(op, beamclaw.KindInternal, "mmdebstrap failed: "+tail.String(), werr)
	}
	if err != nil {
		return fmt.Errorf("import the base rootfs: %w", err)
	}
	return nil
}

// buildTop builds image FROM base with the embedded files.
func buildTop(ctx context.Context, c *client.Client, image, base, content string, progress io.Writer) error {
	var ctxTar bytes.Buffer
	tw := tar.NewWriter(&ctxTar)
	names, err := fs.Glob(imagefiles.Files, "*")
	if err != nil {
		return fmt.Errorf("list image files: %w", err)
	}
	for _, n := range names {
		data, err := fs.ReadFile(imagefiles.Files, n)
		if err != nil {
			return fmt.Errorf("read %s: %w", n, err)
		}
		hdr := &tar.Header{Name: n, Mode: int64(imagefiles.Mode(n)), Size: int64(len(data))}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("tar %s: %w", n, err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("tar %s: %w", n, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	res, err := c.ImageBuild(ctx, &ctxTar, client.ImageBuildOptions{
		Tags:        []string{image},
		BuildArgs:   map[string]*string{"BASE": &base},
		Labels:      map[string]string{LabelContent: content},
		Remove:      true,
		ForceRemove: true,
		Version:     build.BuilderV1,
	})
	if err != nil {
		return fmt.Errorf("docker build: %w", err)
	}
	defer res.Body.Close()
	return copyJSONStream(res.Body, progress)
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
