"""Call beamclaw tools from a sandboxed script.

    import beamclaw_tools as bt

    for t in bt.search_tools("weather"):      # [{"name": ..., "description": ...}]
        print(t["name"])
    spec = bt.get_tool("read_file")           # {"name", "description", "schema"}
    text = bt.call_tool("read_file", {"path": "notes.md"})   # the tool's output (str)

Every call goes to the daemon through the bridge socket of this container
(JSON-RPC 2.0, one JSON object per line) and acts for the session that
started the script, with that session's tools, policy and approvals. A
refused or failing call raises ToolError. /tools/index.txt and
/tools/<name>/{description.txt,schema.json} list the same tools as files.
"""

import json
import os
import socket

__all__ = ["ToolError", "search_tools", "get_tool", "call_tool"]

BRIDGE = os.environ.get("BEAMCLAW_BRIDGE", "/run/beamclaw/bridge.sock")

_conn = None
_reader = None
_next_id = 0


class ToolError(Exception):
    """A tool call the daemon refused or that failed; code is the JSON-RPC code."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def _call(method, params):
    global _conn, _reader, _next_id
    token = os.environ.get("BEAMCLAW_RUN_TOKEN", "")
    if not token:
        raise ToolError(-32002, "BEAMCLAW_RUN_TOKEN is not set: tools can only be called from a sandbox run")
    if _conn is None:
        _conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _conn.connect(BRIDGE)
        _reader = _conn.makefile("rb")
    _next_id += 1
    params = dict(params, run_token=token)
    req = {"jsonrpc": "2.0", "id": _next_id, "method": method, "params": params}
    _conn.sendall(json.dumps(req).encode() + b"\n")
    line = _reader.readline()
    if not line:
        _conn = None
        raise ToolError(-32603, "the bridge closed the connection")
    resp = json.loads(line)
    if resp.get("error"):
        err = resp["error"]
        raise ToolError(err.get("code", -32603), err.get("message", "tool call failed"))
    return resp.get("result")


def search_tools(query="", limit=20):
    """Tools whose name or description matches query (all when empty)."""
    return _call("search_tools", {"query": query, "limit": limit})


def get_tool(name):
    """One tool's name, description and JSON Schema of its arguments."""
    return _call("get_tool", {"name": name})


def call_tool(name, arguments=None, **kwargs):
    """Run a tool with arguments (a dict, or keyword arguments); returns its output."""
    args = dict(arguments or {})
    args.update(kwargs)
    return _call("call_tool", {"name": name, "arguments": args})["content"]
