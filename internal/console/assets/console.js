// beamclaw console: the CSRF header of htmx requests, the chat over /ws
// and the live event log. No inline script anywhere (CSP: script-src 'self').

const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

document.addEventListener("htmx:configRequest", (e) => {
  e.detail.headers["X-CSRF-Token"] = csrf;
});

const el = (tag, cls, text) => {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined) n.textContent = text;
  return n;
};

function chat(root) {
  const log = root.querySelector("#log");
  const status = root.querySelector("#status");
  const agentSel = root.querySelector("#agent");
  const resumeSel = root.querySelector("#resume");
  const form = root.querySelector("#send");
  const box = root.querySelector("#message");
  let ws = null;
  let session = "";
  let retry = 500;
  const runs = new Map(); // run id -> the answer's text element

  const scroll = () => log.lastElementChild?.scrollIntoView({ block: "end" });
  const line = (cls, who, text) => {
    const li = el("li", "msg " + cls);
    li.append(el("span", "who", who));
    const t = el("div", "text", text);
    li.append(t);
    log.append(li);
    scroll();
    return t;
  };
  const send = (f) => ws?.readyState === WebSocket.OPEN && ws.send(JSON.stringify(f));
  const answerOf = (run) => {
    let t = runs.get(run);
    if (!t) {
      t = line("assistant", agentSel.value, "");
      runs.set(run, t);
    }
    return t;
  };

  function approval(f) {
    const a = f.approval;
    const li = el("li", "msg approval card");
    li.append(el("span", "who", "approval · " + a.risk));
    li.append(el("div", "text", a.prompt || a.tool_name));
    li.append(el("pre", "args", a.args));
    const row = el("div", "buttons");
    for (const [d, label, cls] of [["allow", "Approve", "ok"], ["always", "Always", ""], ["deny", "Deny", "danger"]]) {
      const b = el("button", cls, label);
      b.type = "button";
      b.addEventListener("click", () => {
        send({ type: "approve", approval_id: a.id, decision: d });
        row.replaceChildren(el("span", "tag", label.toLowerCase() === "approve" ? "approved" : label.toLowerCase() === "deny" ? "denied" : "always allowed"));
      });
      row.append(b);
    }
    li.append(row);
    log.append(li);
    scroll();
  }

  function showHistory(msgs) {
    log.replaceChildren();
    runs.clear();
    for (const m of msgs || []) {
      if (m.role === "tool") {
        line("tool", "← " + (m.name || "tool"), (m.content || "").slice(0, 300));
      } else if (m.content) {
        line(m.role, m.role === "assistant" ? agentSel.value : m.role, m.content);
      }
      for (const c of m.tool_calls || []) line("tool", "→ " + c.name, JSON.stringify(c.args ?? "").slice(0, 300));
    }
  }

  function onFrame(f) {
    switch (f.type) {
      case "ready":
        session = f.session_id;
        status.textContent = "connected · " + f.agent;
        showHistory(f.history);
        send({ type: "sessions" });
        break;
      case "sessions":
        resumeSel.replaceChildren(el("option", "", "current"));
        resumeSel.firstChild.value = "";
        for (const s of f.sessions || []) {
          const o = el("option", "", (s.title || "(empty)").slice(0, 40) + " · " + s.messages);
          o.value = s.id;
          o.selected = s.id === session;
          resumeSel.append(o);
        }
        break;
      case "ack":
        status.textContent = "thinking…";
        break;
      case "chunk":
        answerOf(f.run_id).textContent += f.text;
        scroll();
        break;
      case "tool_start":
        line("tool", "→ " + f.tool, (f.args ? JSON.stringify(f.args) : "").slice(0, 300));
        break;
      case "tool_result":
        line("tool" + (f.is_error ? " failed" : ""), "← " + f.tool, (f.result || "").slice(0, 300));
        break;
      case "approval_request":
        status.textContent = "waiting for your approval";
        approval(f);
        break;
      case "waiting":
      case "notice":
        line("notice", f.type, f.text);
        break;
      case "final":
        answerOf(f.run_id).textContent = f.text;
        runs.delete(f.run_id);
        status.textContent = "connected";
        scroll();
        break;
      case "error":
        line("error", "error", f.message);
        status.textContent = "connected";
        break;
      case "reset_done":
        showHistory([]);
        send({ type: "sessions" });
        break;
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + "/ws");
    ws.addEventListener("open", () => {
      retry = 500;
      send({ type: "hello", agent: agentSel.value, user: "console", protocol: 1 });
    });
    ws.addEventListener("message", (e) => onFrame(JSON.parse(e.data)));
    ws.addEventListener("close", () => {
      status.textContent = "disconnected; reconnecting…";
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    });
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = box.value.trim();
    if (!text) return;
    line("user", "you", text);
    send({ type: "message", id: crypto.randomUUID(), content: text });
    box.value = "";
  });
  box.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  agentSel.addEventListener("change", () => {
    const u = new URL(location.href);
    u.searchParams.set("agent", agentSel.value);
    window.history.replaceState(null, "", u);
    send({ type: "hello", agent: agentSel.value, user: "console", protocol: 1 });
  });
  resumeSel.addEventListener("change", () => resumeSel.value && send({ type: "resume", session: resumeSel.value }));
  root.querySelector("#new-session").addEventListener("click", () => {
    if (confirm("Start a new session? This one's history is emptied.")) send({ type: "reset" });
  });
  connect();
}

function events(list) {
  const status = document.getElementById("events-status");
  const src = new EventSource(list.dataset.src);
  src.addEventListener("open", () => (status.textContent = "live"));
  src.addEventListener("error", () => (status.textContent = "reconnecting…"));
  const show = (e) => {
    let ev;
    try {
      ev = JSON.parse(e.data);
    } catch {
      return;
    }
    const li = el("li", "event");
    li.append(el("time", "", new Date(ev.time).toLocaleTimeString()), el("strong", "", " " + ev.name + " "));
    const attrs = Object.entries(ev.attrs || {}).map(([k, v]) => k + "=" + v).join(" ");
    li.append(el("span", "attrs", (ev.session_id ? ev.session_id.slice(0, 16) + " " : "") + attrs));
    list.prepend(li);
    while (list.children.length > 500) list.lastElementChild.remove();
  };
  src.onmessage = show;
}

const root = document.getElementById("chat");
if (root) chat(root);
const ev = document.getElementById("events");
if (ev) events(ev);
