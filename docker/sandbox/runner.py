"""beamclaw sandbox runner: the container's main process.

It connects once to the daemon's runner socket (/run/beamclaw/runner.sock,
a read-only bind mount the daemon listens on and closes after this one
connection), then runs scripts the daemon sends over that stream. Scripts
never travel in argv. Newline-delimited JSON both ways:

  in:  {"op": "run", "id": N, "language": "python"|"sh", "code": "...",
        "timeout_ms": T, "max_output": B, "env": {...}, "cwd": "/tmp",
        "group": "<the caller's session, hashed>"}
       {"op": "kill", "id": N}
  out: {"ready": true, "python": "3.11.2"}            once, on connect
       {"id": N, "o": base64} / {"id": N, "e": base64}  stdout / stderr
       {"id": N, "exit": code, "sig": signal, "timed_out": bool,
        "killed": bool, "oom": bool, "dropped_o": n, "dropped_e": n,
        "ms": duration}                                 once, last
       {"id": N, "error": "..."}                        could not start

The runner is root with only CAP_SETUID, CAP_SETGID and CAP_KILL
(no-new-privileges);
each run is its own user: a uid never used before in this container, the
group of its caller's session (runs of one session share their files,
umask 007; other sessions' runs cannot read them) and the sandbox group
10001 (the sockets, the workspace). Another run's processes, environment
(BEAMCLAW_RUN_TOKEN), script and files are another user's: unreadable, not
traceable, not signalable. On its timeout, on a kill request, and when its
main process exits, every process of the run's uid is killed -- however it
detached (setsid, double fork, nohup): the runner signals each process of
that uid, pass after pass, until none is left, forking nothing. Scripts are
exec'd (sh, or a fresh Python interpreter) from a memfd: nothing of the
runner's memory, which has seen other runs' requests, reaches a run. The
runner is single-threaded (a selector loop), so forking is safe. When the daemon's
connection closes, every run is killed and the runner exits, which ends
the container.
"""

import base64
import hashlib
import json
import os
import secrets
import selectors
import signal
import socket
import sys
import time
import traceback
import types

SOCKET = "/run/beamclaw/runner.sock"
RUN_UID_BASE = 100000  # a run's uid: RUN_UID_BASE + a random 24-bit number, never reused
SESSION_GID_BASE = 20000000  # a session's group: SESSION_GID_BASE + 24 bits of its key's hash
SANDBOX_GID = 10001  # may connect to the bridge, may read a shared workspace
RUN_UMASK = 0o007  # a run's files: its own and its session's, nobody else's
KILL_ROUNDS = 500  # kill passes before a run's uid is given up as clean
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
    def __init__(self, req, uid, gid):
        self.id = req["id"]
        self.uid = uid
        self.gid = gid
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

    def kill_all(self):
        """Kill every process of the run's uid, wherever it went."""
        kill_uid(self.uid)


def become(uid, gid):
    """Drop to a run's user: no capabilities are left after setuid."""
    os.setgroups([SANDBOX_GID])
    os.setgid(gid)
    os.setuid(uid)
    os.umask(RUN_UMASK)


def procs_of(uid):
    """The processes of uid still alive (zombies are dead: their parent
    reaps them). uid is a run's, never the runner's."""
    out = []
    want = [str(uid).encode()]
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/status" % p, "rb") as f:  # bytes: a run sets its own comm
                fields = dict(line.split(b":", 1) for line in f if b":" in line)
        except (OSError, ValueError):
            continue
        if fields.get(b"Uid", b"").split()[:1] == want and not fields.get(b"State", b"").strip().startswith((b"Z", b"X")):
            out.append(int(p))
    return out


def kill_uid(uid):
    """SIGKILL every process of uid, pass after pass, until none is alive
    (a process forking while it is killed has its children caught by the
    next pass). The runner holds CAP_KILL for this and forks nothing, so a
    run at its pids limit (a fork bomb) cannot stop it."""
    for _ in range(KILL_ROUNDS):
        pids = procs_of(uid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)
    # Fail closed: a run that outlives every pass (forking faster than
    # the passes find it) must not outlive its container. The runner's
    # exit ends the container and the daemon replaces it.
    sys.stderr.write("runner: the processes of uid %d survived %d kill passes; ending the container\n" % (uid, KILL_ROUNDS))
    os._exit(70)


def child(req, out_w, err_w, script_fd, uid, gid):
    """In the forked child: become the run's user and a new session, wire
    stdio, run."""
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")  # the script dies first, never the runner
        except OSError:
            pass
        become(uid, gid)
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
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        if req.get("language") == "sh":
            os.execve("/bin/sh", ["sh", "/proc/self/fd/3"], env)
        os.execve(sys.executable, [sys.executable, "-I", "-c", PYTHON_MAIN], env)
    except BaseException:
        try:
            traceback.print_exc()
        finally:
            os._exit(127)


# PYTHON_MAIN runs a Python script in a fresh interpreter (exec'd, so
# nothing of the runner's memory -- other runs' requests, their tokens --
# is in the run's process): the script from fd 3, as "<script>", its
# output UTF-8 with undecodable characters escaped, SystemExit as exit.
PYTHON_MAIN = r"""
import os, sys, types
with open(3, "r", encoding="utf-8", errors="replace") as f:
    code = f.read()
sys.argv = ["<script>"]
sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)
sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)
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
    import traceback  # only now: importing it costs more than the interpreter's start
    traceback.print_exc()
    rc = 1
for f in (sys.stdout, sys.stderr):
    try:
        f.flush()
    except Exception:
        pass
os._exit(rc)
"""


class Runner:
    def __init__(self, sock):
        self.sock = sock
        self.inbuf = b""
        self.runs = {}  # id -> Run
        self.by_pid = {}  # pid -> Run
        self.used_uids = set()  # every run's uid in this container: never reused
        self.gids = {}  # session group key -> gid
        self.groups = {}  # gid -> session group key (no two sessions share one)
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
                try:
                    if key.data == "ctl":
                        if not self.read_control():
                            self.shutdown()
                            return
                    elif key.data == "wake":
                        self.reap()
                    else:
                        self.read_output(key.fd, key.data)
                except (ValueError, KeyError, TypeError, UnicodeError) as e:
                    # A bad request or a run's odd /proc entry is that
                    # event's problem, never the runner's end.
                    sys.stderr.write("runner: %s: %s\n" % (type(e).__name__, e))
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
                r.kill_all()

    def gid_for(self, group):
        """A session's group, derived from its key, so that it is the same
        in every container (a workspace outlives them) and differs between
        sessions (probing past another session's)."""
        gid = self.gids.get(group)
        if gid is not None:
            return gid
        gid = SESSION_GID_BASE + int(hashlib.sha256(group.encode()).hexdigest()[:6], 16)
        while self.groups.get(gid, group) != group:
            gid += 1
        self.gids[group], self.groups[gid] = gid, group
        return gid

    def new_uid(self):
        """A run's uid: random in a space of 2**24, so that runs of other
        containers on one workspace do not share one, and never used before
        in this container."""
        while True:
            uid = RUN_UID_BASE + secrets.randbelow(1 << 24)
            if uid not in self.used_uids:
                self.used_uids.add(uid)
                return uid

    def start(self, req):
        r = Run(req, self.new_uid(), self.gid_for(str(req.get("group", ""))))
        out_r = out_w = err_r = err_w = script_fd = None
        try:
            out_r, out_w = os.pipe2(os.O_CLOEXEC)
            err_r, err_w = os.pipe2(os.O_CLOEXEC)
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
            child(req, out_w, err_w, script_fd, r.uid, r.gid)
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
            r.kill_all()  # whatever it left running, however detached
            r.drain_until = now() + DRAIN_GRACE
            self.maybe_finish(r)

    def check_deadlines(self):
        t = now()
        for r in list(self.runs.values()):
            if r.status is None and t >= r.deadline and not r.timed_out:
                r.timed_out = True
                r.kill_all()
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
            r.kill_all()


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
