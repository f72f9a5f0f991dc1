"""beamclaw sandbox runner: the container's main process.

It connects once to the daemon's runner socket (/run/beamclaw/runner.sock,
a read-only bind mount the daemon listens on and closes after this one
connection), then runs scripts the daemon sends over that stream. Scripts
never travel in argv. Newline-delimited JSON both ways:

  in:  {"op": "run", "id": N, "language": "python"|"sh", "code": "...",
        "timeout_ms": T, "max_output": B, "env": {...}, "cwd": "/tmp"}
       {"op": "kill", "id": N}
  out: {"ready": true, "python": "3.11.2"}            once, on connect
       {"id": N, "o": base64} / {"id": N, "e": base64}  stdout / stderr
       {"id": N, "exit": code, "sig": signal, "timed_out": bool,
        "killed": bool, "oom": bool, "dropped_o": n, "dropped_e": n,
        "ms": duration}                                 once, last
       {"id": N, "error": "..."}                        could not start

Each run is its own session and process group (setsid). On its timeout,
on a kill request, and when its main process exits, the whole group is
killed with SIGKILL from in here: killing a host-side client would leave
the processes running. Python scripts run in a fork of this process (no
interpreter start); sh scripts are exec'd from a memfd. The runner is
single-threaded (a selector loop), so forking is safe. When the daemon's
connection closes, every run is killed and the runner exits, which ends
the container.
"""

import base64
import json
import os
import selectors
import signal
import socket
import sys
import time
import traceback
import types

SOCKET = "/run/beamclaw/runner.sock"
DRAIN_GRACE = 0.5  # seconds to read pipes after the group is killed
READ_CHUNK = 65536


def now():
    return time.monotonic()


def oom_kills():
    """The cgroup's OOM kill counter, or -1 when unreadable."""
    for path, key in (("/sys/fs/cgroup/memory.events", "oom_kill"),
                      ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill")):
        try:
            with open(path) as f:
                for line in f:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except (OSError, ValueError):
            continue
    return -1


class Run:
    def __init__(self, req):
        self.id = req["id"]
        self.pid = 0
        self.fds = {}  # fd -> "o" | "e"
        self.deadline = now() + max(int(req.get("timeout_ms", 60000)), 1) / 1000.0
        self.drain_until = None
        self.room = max(int(req.get("max_output", 1 << 20)), 0)
        self.dropped = {"o": 0, "e": 0}
        self.status = None
        self.timed_out = False
        self.killed = False
        self.started = now()
        self.oom_before = oom_kills()

    def kill_group(self):
        # The group id is the pid (setsid). Repeat until nothing is left,
        # in case a member was forking while the first signal went out.
        for _ in range(8):
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                return
            except PermissionError:
                return


def child(req, out_w, err_w, script_fd):
    """In the forked child: become a new session, wire stdio, run."""
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")  # the script dies first, never the runner
        except OSError:
            pass
        devnull = os.open("/dev/null", os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        keep = 3
        if script_fd is not None:
            os.dup2(script_fd, 3)
            keep = 4
        os.closerange(keep, 1 << 16)
        env = {str(k): str(v) for k, v in (req.get("env") or {}).items()}
        try:
            os.chdir(req.get("cwd") or "/tmp")
        except OSError:
            os.chdir("/tmp")
        if req.get("language") == "sh":
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.execve("/bin/sh", ["sh", "/proc/self/fd/3"], env)
        run_python(req.get("code", ""), env)
    except BaseException:
        try:
            traceback.print_exc()
        finally:
            os._exit(127)


def run_python(code, env):
    os.environ.clear()
    os.environ.update(env)
    sys.argv = ["<script>"]
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace",
                      closefd=False, buffering=1)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace",
                      closefd=False, buffering=1)
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    rc = 0
    try:
        exec(compile(code, "<script>", "exec"), main.__dict__)
    except SystemExit as e:
        if e.code is None:
            rc = 0
        elif isinstance(e.code, int):
            rc = e.code & 0xFF
        else:
            print(e.code, file=sys.stderr)
            rc = 1
    except BaseException:
        traceback.print_exc()
        rc = 1
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    os._exit(rc)


class Runner:
    def __init__(self, sock):
        self.sock = sock
        self.inbuf = b""
        self.runs = {}  # id -> Run
        self.by_pid = {}  # pid -> Run
        self.sel = selectors.DefaultSelector()
        self.wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(wake_w)
        self.sel.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.sel.register(sock, selectors.EVENT_READ, "ctl")

    def send(self, msg):
        self.sock.sendall(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    def loop(self):
        self.send({"ready": True, "python": sys.version.split()[0]})
        while True:
            for key, _ in self.sel.select(self.next_timeout()):
                if key.data == "ctl":
                    if not self.read_control():
                        self.shutdown()
                        return
                elif key.data == "wake":
                    self.reap()
                else:
                    self.read_output(key.fd, key.data)
            self.check_deadlines()

    def next_timeout(self):
        t = None
        for r in self.runs.values():
            d = r.drain_until if r.status is not None else r.deadline
            if d is not None and (t is None or d < t):
                t = d
        return None if t is None else max(t - now(), 0)

    def read_control(self):
        try:
            data = self.sock.recv(READ_CHUNK)
        except OSError:
            return False
        if not data:
            return False
        self.inbuf += data
        while b"\n" in self.inbuf:
            line, self.inbuf = self.inbuf.split(b"\n", 1)
            if line.strip():
                self.handle(json.loads(line))
        return True

    def handle(self, req):
        op = req.get("op")
        if op == "run":
            self.start(req)
        elif op == "kill":
            r = self.runs.get(req.get("id"))
            if r is not None and r.status is None:
                r.killed = True
                r.kill_group()

    def start(self, req):
        r = Run(req)
        out_r = out_w = err_r = err_w = script_fd = None
        try:
            out_r, out_w = os.pipe2(os.O_CLOEXEC)
            err_r, err_w = os.pipe2(os.O_CLOEXEC)
            if req.get("language") == "sh":
                script_fd = os.memfd_create("script", 0)
                os.write(script_fd, req.get("code", "").encode("utf-8", "replace"))
                os.lseek(script_fd, 0, os.SEEK_SET)
            pid = os.fork()
        except OSError as e:
            for fd in (out_r, out_w, err_r, err_w, script_fd):
                if fd is not None:
                    os.close(fd)
            self.send({"id": r.id, "error": "could not start the script: %s" % e})
            return
        if pid == 0:
            child(req, out_w, err_w, script_fd)
        for fd in (out_w, err_w, script_fd):
            if fd is not None:
                os.close(fd)
        r.pid = pid
        r.fds = {out_r: "o", err_r: "e"}
        for fd, stream in r.fds.items():
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ, (r, stream))
        self.runs[r.id] = r
        self.by_pid[pid] = r

    def read_output(self, fd, data):
        r, stream = data
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            self.close_fd(r, fd)
            return
        keep = chunk[: r.room]
        r.room -= len(keep)
        r.dropped[stream] += len(chunk) - len(keep)
        if keep:
            self.send({"id": r.id, stream: base64.b64encode(keep).decode()})

    def close_fd(self, r, fd):
        self.sel.unregister(fd)
        os.close(fd)
        del r.fds[fd]
        self.maybe_finish(r)

    def reap(self):
        try:
            while os.read(self.wake_r, 512):
                pass
        except BlockingIOError:
            pass
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            r = self.by_pid.pop(pid, None)
            if r is None:
                continue
            r.status = status
            r.ms = int((now() - r.started) * 1000)
            r.kill_group()  # whatever it left running in its group
            r.drain_until = now() + DRAIN_GRACE
            self.maybe_finish(r)

    def check_deadlines(self):
        t = now()
        for r in list(self.runs.values()):
            if r.status is None and t >= r.deadline and not r.timed_out:
                r.timed_out = True
                r.kill_group()
            elif r.status is not None and t >= r.drain_until:
                for fd in list(r.fds):
                    self.close_fd(r, fd)

    def maybe_finish(self, r):
        if r.status is None or r.fds or r.id not in self.runs:
            return
        del self.runs[r.id]
        sig = os.WTERMSIG(r.status) if os.WIFSIGNALED(r.status) else 0
        code = os.WEXITSTATUS(r.status) if os.WIFEXITED(r.status) else 128 + sig
        oom = sig == signal.SIGKILL and not r.timed_out and not r.killed and \
            r.oom_before >= 0 and oom_kills() > r.oom_before
        self.send({"id": r.id, "exit": code, "sig": sig, "timed_out": r.timed_out,
                   "killed": r.killed, "oom": oom, "dropped_o": r.dropped["o"],
                   "dropped_e": r.dropped["e"], "ms": r.ms})

    def shutdown(self):
        for r in self.runs.values():
            r.kill_group()


def connect():
    deadline = now() + 10
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(SOCKET)
            return s
        except OSError:
            s.close()
            if now() > deadline:
                raise
            time.sleep(0.05)


def main():
    sys.dont_write_bytecode = True
    os.umask(0o077)
    Runner(connect()).loop()


if __name__ == "__main__":
    main()
