// A small Socket.IO v5 client over Engine.IO v4 WebSocket transport, written for the
// interview page: connect, events with optional acks, ping/pong, reconnect.
"use strict";
class MiniSocket {
  constructor(path) {
    this.path = path || "/socket.io/";
    this.handlers = {};
    this.acks = {};
    this.nextAck = 0;
    this.connected = false;
    this.closed = false;
    this.open();
  }
  on(event, fn) { (this.handlers[event] = this.handlers[event] || []).push(fn); return this; }
  fire(event, ...args) { (this.handlers[event] || []).forEach((fn) => fn(...args)); }
  open() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    this.ws = new WebSocket(`${proto}//${location.host}${this.path}?EIO=4&transport=websocket`);
    this.ws.onmessage = (e) => this.onPacket(String(e.data));
    this.ws.onclose = () => {
      const was = this.connected;
      this.connected = false;
      if (was) this.fire("disconnect");
      if (!this.closed) setTimeout(() => this.open(), 1000);
    };
  }
  onPacket(data) {
    switch (data[0]) {
      case "0": this.ws.send("40"); break;             // Engine.IO open: join namespace "/"
      case "2": this.ws.send("3"); break;              // ping -> pong
      case "4": this.onSocketIo(data.slice(1)); break; // Socket.IO packet
      default: break;
    }
  }
  onSocketIo(p) {
    const type = p[0];
    let i = 1;
    if (p[i] === "/") { const comma = p.indexOf(",", i); i = comma < 0 ? p.length : comma + 1; }
    let id = "";
    while (i < p.length && p[i] >= "0" && p[i] <= "9") id += p[i++];
    const payload = i < p.length ? JSON.parse(p.slice(i)) : undefined;
    if (type === "0") { this.connected = true; this.fire("connect"); }
    else if (type === "2") { const [name, ...args] = payload; this.fire(name, ...args); }
    else if (type === "3") { const cb = this.acks[id]; delete this.acks[id]; if (cb) cb(...payload); }
    else if (type === "4") { this.fire("connect_error", payload); }
    else if (type === "1") { this.connected = false; this.fire("disconnect"); }
  }
  emit(name, data, ack) {
    if (!this.connected) return false;
    let id = "";
    if (ack) { id = String(++this.nextAck); this.acks[id] = ack; }
    this.ws.send("42" + id + JSON.stringify(data === undefined ? [name] : [name, data]));
    return true;
  }
}

// ---- the interview page ----
(function () {
  const token = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
  const $ = (id) => document.getElementById(id);
  const seen = new Set();
  let session = null;
  let remaining = 0;
  let lastTick = Date.now();

  function show(id, on) { $(id).hidden = !on; }
  function setStatus(status) {
    if (session) session.status = status;
    $("status").textContent = status.replace("_", " ");
    $("status").dataset.status = status;
    show("start", status === "pending");
    show("pause", status === "in_progress");
    show("resume", status === "paused");
    show("finish", status === "in_progress" || status === "paused");
    const answering = status === "in_progress";
    // A finished interview takes no more answers: the composer and quick replies go.
    const done = status === "completed";
    show("composer", !done);
    show("suggestions", !done);
    if (done) $("suggestions").innerHTML = "";
    $("answer").disabled = !answering;
    $("send").disabled = !answering;
  }
  function addMessage(m) {
    if (seen.has(m.id)) return;
    seen.add(m.id);
    const div = document.createElement("div");
    div.className = `msg ${m.role} ${m.message_type}`;
    div.id = `m-${m.id}`;
    const meta = m.message_type === "question" && m.question_number
      ? `Question ${m.question_number} of ${m.total_questions}` : "";
    div.innerHTML = `<div class="meta"></div><div class="text"></div><div class="score"></div>`;
    div.querySelector(".meta").textContent = meta;
    div.querySelector(".text").textContent = m.content;
    if (m.score) showScore(m.score);
    $("messages").appendChild(div);
    if (m.score) showScore(m.score);
    $("messages").scrollTop = $("messages").scrollHeight;
    if (m.suggestions && m.suggestions.length) {
      const box = $("suggestions");
      box.innerHTML = "";
      m.suggestions.forEach((s) => {
        const b = document.createElement("button");
        b.type = "button"; b.textContent = s;
        b.onclick = () => { $("answer").value = s + " "; $("answer").focus(); };
        box.appendChild(b);
      });
    }
  }
  function showScore(score) {
    const el = document.querySelector(`#m-${score.message_id} .score`);
    if (el) el.textContent = `Score ${score.composite_score.toFixed(0)}/100 — ${score.summary}`;
  }
  function showSummary(r) {
    show("summary", true);
    $("overall-score").textContent = r.overall_score.toFixed(1);
    $("grade").textContent = r.grade;
    const list = (id, items) => {
      $(id).innerHTML = "";
      (items || []).forEach((s) => { const li = document.createElement("li"); li.textContent = s; $(id).appendChild(li); });
      show(`${id}-box`, (items || []).length > 0); // no heading over an empty list
    };
    list("strengths", r.strengths);
    list("improvements", r.improvements);
  }
  function error(msg) { $("error").textContent = msg; show("error", true); setTimeout(() => show("error", false), 6000); }
  function tick() {
    if (session && session.status === "in_progress") remaining = Math.max(0, remaining - (Date.now() - lastTick) / 1000);
    lastTick = Date.now();
    const s = Math.round(remaining);
    $("timer").textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }
  setInterval(tick, 1000);

  async function rest(method, path) {
    const res = await fetch(`/api/v1/sessions/${session.id}${path}`, { method, headers: { "X-Session-Token": token } });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error((body.error && body.error.message) || res.statusText);
    return body;
  }

  const socket = new MiniSocket();
  socket.on("connect", () => { $("conn").textContent = "connected"; $("conn").dataset.state = "connected"; socket.emit("join_session", { session_token: token }); });
  socket.on("disconnect", () => { $("conn").textContent = "reconnecting…"; $("conn").dataset.state = "reconnecting"; });
  socket.on("session_joined", (data) => {
    session = data.session;
    remaining = session.remaining_seconds;
    $("title").textContent = `${session.job_title} — interview with ${session.candidate_name}`;
    (data.messages || []).forEach(addMessage);
    setStatus(session.status);
    if (session.status === "completed") rest("GET", "/report").then(showSummary).catch(() => {});
  });
  socket.on("message", (data) => addMessage(data.message));
  socket.on("score", (data) => showScore(data.score));
  socket.on("typing", (t) => { if (t.role !== "candidate") show("typing", t.is_typing); });
  socket.on("status_update", (u) => {
    setStatus(u.status);
    fetch(`/api/v1/sessions/token/${encodeURIComponent(token)}`).then((r) => r.json())
      .then((s) => { if (s.remaining_seconds !== undefined) remaining = s.remaining_seconds; }).catch(() => {});
  });
  socket.on("interview_complete", (data) => showSummary(data.report));
  socket.on("error", (e) => error(e.message || "error"));

  $("start").onclick = () => rest("POST", "/start")
    .then((r) => { addMessage(r.greeting); addMessage(r.first_question); setStatus(r.status); })
    .catch((e) => error(e.message));
  $("pause").onclick = () => socket.emit("pause");
  $("resume").onclick = () => socket.emit("resume");
  $("finish").onclick = () => { if (confirm("Finish the interview now?")) socket.emit("complete"); };
  let typingTimer = null;
  $("answer").oninput = () => {
    socket.emit("typing", { is_typing: true });
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => socket.emit("typing", { is_typing: false }), 1500);
  };
  // Enter sends; Shift+Enter starts a new line.
  $("answer").onkeydown = (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); $("composer").requestSubmit(); }
  };
  $("composer").onsubmit = (e) => {
    e.preventDefault();
    const content = $("answer").value.trim();
    if (!content) return;
    if (socket.emit("send_message", { content })) { $("answer").value = ""; $("suggestions").innerHTML = ""; }
    else error("Not connected; please wait a moment.");
  };
})();
