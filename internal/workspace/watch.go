package workspace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask is every change that can alter a prompt: files written,
// created, removed, renamed, their modes, and the directory itself going.
const watchMask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// Watcher tells the Store when a workspace changed, so that an unchanged
// workspace's prompt is reused without a stat per file and turn (issue 13).
// It watches each workspace directory and its daily-log directory with
// inotify; the kernel queues the events as the changes happen, and every
// question (generation) first reads what is queued, so a change made before
// a prompt is asked for is always seen by that prompt. While the Watcher
// does not run (or inotify is unavailable), the Store stats every file.
//
// The Watcher is a service: Serve owns the inotify instance for its run.
type Watcher struct {
	mu   sync.Mutex
	fd   int // -1 when not running
	buf  []byte
	dirs map[string]*watched // workspace directory -> its watches
	wds  map[int32]*watched  // watch descriptor -> its workspace
}

// watched is one workspace directory under watch.
type watched struct {
	dir        string
	gen        uint64 // bumped on every change
	root, logs int32  // watch descriptors (0: none yet)
}

func newWatcher() *Watcher {
	return &Watcher{fd: -1, dirs: map[string]*watched{}, wds: map[int32]*watched{}}
}

// Serve creates the inotify instance and holds it until ctx ends; an error
// means inotify is unavailable (prompts then stat their files).
func (w *Watcher) Serve(ctx context.Context) error {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return fmt.Errorf("workspace watcher: inotify: %w", err)
	}
	w.mu.Lock()
	w.fd, w.buf = fd, make([]byte, 64<<10)
	w.mu.Unlock()
	<-ctx.Done()
	w.mu.Lock()
	w.fd = -1
	clear(w.dirs)
	clear(w.wds)
	w.mu.Unlock()
	_ = unix.Close(fd)
	return nil
}

func (w *Watcher) String() string { return "workspace.watcher" }

// generation returns the change count of the workspace dir, watching it
// from now on; ok is false when it cannot be watched (the Watcher is not
// running, inotify refused it): the caller must stat.
func (w *Watcher) generation(dir string) (gen uint64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return 0, false
	}
	w.drainLocked()
	d := w.dirs[dir]
	fresh := d == nil
	if fresh {
		d = &watched{dir: dir}
	}
	if d.root == 0 {
		wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
		if err != nil {
			// A directory never watched is not remembered (a user without
			// memory of their own yet); one watched before keeps its count,
			// so a prompt cached then is never taken for current.
			return 0, false // missing, or past fs.inotify.max_user_watches
		}
		if fresh {
			w.dirs[dir] = d
		}
		d.root = int32(wd)
		w.wds[d.root] = d
		d.gen++ // changes before the watch are unknown
	}
	if d.logs == 0 {
		// The daily-log directory may not exist yet: its creation is an
		// event of the root watch, and the next question adds it.
		if wd, err := unix.InotifyAddWatch(w.fd, filepath.Join(dir, DailyDir), watchMask); err == nil {
			d.logs = int32(wd)
			w.wds[d.logs] = d
			d.gen++
		}
	}
	return d.gen, true
}

// drainLocked reads every queued event and bumps the generations of the
// workspaces they concern. The caller holds w.mu.
func (w *Watcher) drainLocked() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if n <= 0 || err != nil {
			if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				w.forgetAllLocked() // an unusable queue: start over
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			w.eventLocked(ev.Wd, ev.Mask)
		}
	}
}

// eventLocked applies one event.
func (w *Watcher) eventLocked(wd int32, mask uint32) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.forgetAllLocked()
		return
	}
	d := w.wds[wd]
	if d == nil {
		return
	}
	d.gen++
	if mask&unix.IN_MOVE_SELF != 0 { // the watch would follow the directory elsewhere
		_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
		mask |= unix.IN_IGNORED
	}
	if mask&unix.IN_IGNORED != 0 { // the watched directory went away
		delete(w.wds, wd)
		if d.root == wd {
			d.root = 0
		}
		if d.logs == wd {
			d.logs = 0
		}
	}
}

// forgetAllLocked marks every workspace changed: events were lost.
func (w *Watcher) forgetAllLocked() {
	for _, d := range w.dirs {
		d.gen++
	}
}
