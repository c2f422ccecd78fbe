// Interview load: N sessions created over REST, one Socket.IO socket each (join_session),
// started over REST; then the server's added RSS, and the `send_message` -> `score` round
// trip over the socket. Raw Engine.IO v4 / Socket.IO v5 frames over `ws` (the package
// installed in benches/socketio: run `npm ci` there first).
//   node benches/interview_load.mjs URL PID [SESSIONS=1000] [LATENCY_SESSIONS=100] [ANSWERS=10]
// URL is a `switchboard serve --only interview` (e.g. http://127.0.0.1:8083), PID its process.
// Prints one JSON line.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const WebSocket = createRequire(new URL("./socketio/package.json", import.meta.url))("ws");
const [base, pidArg, ...rest] = process.argv.slice(2);
const pid = Number(pidArg);
const SESSIONS = Number(rest[0] ?? 1000);
const LAT_SESSIONS = Math.min(SESSIONS, Number(rest[1] ?? 100));
const ANSWERS = Number(rest[2] ?? 10);
const KEY = process.env.INTERVIEW_API_KEY ?? "dev-interview-api-key";
const wsUrl = base.replace(/^http/, "ws") + "/socket.io/?EIO=4&transport=websocket";
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6;

async function api(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { "X-API-Key": KEY, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data ?? json;
}

/** Runs `fn` over `items`, `width` at a time. */
async function pool(items, width, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

/** One socket on "/" that has joined its session; `waiters` resolve on named events. */
function join(token) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
    const sock = { ws, waiters: new Map() };
    ws.on("error", reject);
    ws.on("message", (buf) => {
      const m = buf.toString();
      if (m === "2") return ws.send("3");
      if (m[0] === "0") return ws.send("40");
      if (m.startsWith("40")) return ws.send(`42${JSON.stringify(["join_session", { session_token: token }])}`);
      if (m.startsWith("43")) { // ack: 43<id>[...]
        const id = /^43(\d+)/.exec(m)[1];
        const w = sock.waiters.get(`ack${id}`);
        if (w) { sock.waiters.delete(`ack${id}`); w(JSON.parse(m.slice(2 + id.length))[0]); }
        return;
      }
      if (!m.startsWith("42")) return;
      const [name, data] = JSON.parse(m.slice(2));
      if (name === "session_joined") resolve(sock);
      if (name === "error") reject(new Error(JSON.stringify(data)));
      const w = sock.waiters.get(name);
      if (w) { sock.waiters.delete(name); w(data); }
    });
  });
}

const rss0 = rssMb();
let t = now();
const sessions = await pool(Array.from({ length: SESSIONS }, (_, i) => i), 16, (i) =>
  api("POST", "/api/v1/sessions", {
    candidate_name: `Load ${i}`, job_title: "Backend engineer",
    max_questions: 50, time_limit_minutes: 240,
  }));
const createMs = now() - t;
t = now();
const sockets = await pool(sessions, 32, (s) => join(s.session_token));
const joinMs = now() - t;
t = now();
await pool(sessions, 16, (s) => api("POST", `/api/v1/sessions/${s.session_id ?? s.id}/start`));
const startMs = now() - t;
await sleep(3000);
const rss1 = rssMb();

// send_message -> score: LAT_SESSIONS sessions answer ANSWERS questions each, in parallel,
// each waiting for its `score`, then for the ack (the next question is asked) before answering again.
const lat = [];
t = now();
await Promise.all(sockets.slice(0, LAT_SESSIONS).map(async (sock, i) => {
  for (let k = 0; k < ANSWERS; k++) {
    const scored = new Promise((r) => sock.waiters.set("score", r));
    const acked = new Promise((r) => sock.waiters.set(`ack${k}`, r));
    const t0 = now();
    sock.ws.send(`42${k}${JSON.stringify(["send_message", { content: `Answer ${k} from session ${i}: I would profile first, then fix the hot path.` }])}`);
    await scored;
    lat.push(now() - t0);
    const ack = await acked; // the next question is open once the ack arrives
    if (!ack.ok) throw new Error(`send_message failed: ${JSON.stringify(ack)}`);
  }
}));
const latWall = now() - t;
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
console.log(JSON.stringify({
  sessions: SESSIONS, joined_sockets: sockets.length,
  create_s: +(createMs / 1000).toFixed(2), join_s: +(joinMs / 1000).toFixed(2), start_s: +(startMs / 1000).toFixed(2),
  rss_before_mb: +rss0.toFixed(1), rss_after_mb: +rss1.toFixed(1), added_mb: +(rss1 - rss0).toFixed(1),
  kb_per_session: +(((rss1 - rss0) * 1024) / SESSIONS).toFixed(1),
  score_round_trips: lat.length, concurrent_answering_sessions: LAT_SESSIONS,
  score_p50_ms: +q(0.5).toFixed(2), score_p99_ms: +q(0.99).toFixed(2), score_max_ms: +lat[lat.length - 1].toFixed(2),
  answers_per_s: +((lat.length / latWall) * 1000).toFixed(1),
}));
sockets.forEach((s) => s.ws.terminate());
process.exit(0);
