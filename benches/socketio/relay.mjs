// Marketplace message relay under a paced load, beside the bare Socket.IO echo of the same
// raw-WebSocket clients (docs/benchmarks.md):
//   node relay.mjs relay URL PID PAIRS RATE SECONDS
//     -> PAIRS sender/receiver accounts; senders POST /messages/send (keep-alive) at RATE
//        messages/s in total; each receiver's sockets get new_message. Reports
//        send-to-receive latency p50/p99 (POST issued -> event received), the send
//        acknowledgement (HTTP 201) p50/p99, messages relayed per second, server CPU.
//   node relay.mjs echo URL PID CLIENTS RATE SECONDS
//     -> the same pacing on examples/socketio_echo: emit "message", wait "message-back".
import { readFileSync } from "node:fs";
import http from "node:http";
import WebSocket from "ws";

const [mode, base, pidArg, countArg, rateArg, secondsArg] = process.argv.slice(2);
const pid = Number(pidArg);
const count = Number(countArg);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const wsUrl = base.replace(/^http/, "ws") + "/socket.io/?EIO=4&transport=websocket";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const cpuMs = () => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};
const quantile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? +s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(3) : null;
};

/** One socket on namespace "/", with `auth` in CONNECT; `onEvent(name, data)` per event. */
function connect(auth, onEvent) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
    ws.on("error", reject);
    ws.on("message", (buf) => {
      const m = buf.toString();
      if (m === "2") return ws.send("3");
      if (m[0] === "0") return ws.send(auth ? `40${JSON.stringify(auth)}` : "40");
      if (m.startsWith("44")) return reject(new Error(`refused: ${m}`));
      if (m.startsWith("40")) return resolve(ws);
      if (m.startsWith("42")) {
        const [name, ...args] = JSON.parse(m.slice(2));
        onEvent(name, args);
      }
    });
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function request(method, path, body, token) {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : undefined;
    const headers = { "content-type": "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = http.request(new URL(path, base), { method, agent, headers }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

/** Fires `send(n)` RATE times a second for SECONDS, n counting from 0; answers the count. */
async function paced(send) {
  let n = 0;
  const start = now();
  const total = rate * seconds;
  while (n < total) {
    const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate));
    while (n < due) send(n++);
    await sleep(1);
  }
  return { total, elapsed: (now() - start) / 1000 };
}

async function relay() {
  const users = [];
  for (let i = 0; i < 2 * count; i++) {
    const phone = `+49176${String(Date.now() % 1e5).padStart(5, "0")}${String(i).padStart(3, "0")}`;
    const res = await request("POST", "/auth/signup", { phone, password: "relay-secret" });
    if (res.status !== 201) throw new Error(`signup ${res.status} ${JSON.stringify(res.body)}`);
    // Sending needs a verified phone: the code from the outbox (MARKETPLACE_OUTBOX).
    const texts = readFileSync(process.env.MARKETPLACE_OUTBOX, "utf8")
      .split("\n")
      .filter((l) => l.includes(phone))
      .map((l) => JSON.parse(l).text);
    const otp = texts[texts.length - 1].match(/\b(\d{6})\b/)[1];
    const verified = await request("POST", "/auth/verify-signup", { phone, otp });
    if (verified.status !== 200) throw new Error(`verify ${verified.status} ${JSON.stringify(verified.body)}`);
    users.push({ token: verified.body.data.token, id: verified.body.data.user._id });
  }
  const sentAt = new Map();
  const latencies = [];
  const acks = [];
  let failed = 0;
  const failures = {};
  const fail = (why) => {
    failed++;
    failures[why] = (failures[why] || 0) + 1;
  };
  for (let p = 0; p < count; p++) {
    await connect({ token: users[2 * p + 1].token }, (name, [data]) => {
      if (name !== "new_message") return;
      const t = sentAt.get(data.message);
      if (t !== undefined) latencies.push(now() - t);
    });
  }
  await sleep(500);
  const cpu0 = cpuMs();
  const { total, elapsed } = await paced((n) => {
    const pair = n % count;
    const text = `m${n}`;
    const t = now();
    sentAt.set(text, t);
    request("POST", "/messages/send", { receiverId: users[2 * pair + 1].id, message: text }, users[2 * pair].token)
      .then((res) => (res.status === 201 ? acks.push(now() - t) : fail(`${res.status} ${res.body?.error?.code ?? res.body?.code ?? ""}`)))
      .catch((e) => fail(e.code ?? String(e)));
  });
  const deadline = now() + 3000;
  while (latencies.length + failed < total && now() < deadline) await sleep(10);
  const cpu = cpuMs() - cpu0;
  console.log(JSON.stringify({
    mode: "relay", pairs: count, rate, seconds, sent: total, delivered: latencies.length, failed, failures,
    relayed_per_s: +(latencies.length / elapsed).toFixed(1),
    server_cpu_ms_per_1000: +((cpu / total) * 1000).toFixed(2),
    p50_ms: quantile(latencies, 0.5), p99_ms: quantile(latencies, 0.99),
    ack_p50_ms: quantile(acks, 0.5), ack_p99_ms: quantile(acks, 0.99),
  }));
}

async function echo() {
  const latencies = [];
  const sentAt = new Map();
  const socks = [];
  for (let c = 0; c < count; c++) {
    socks.push(await connect(null, (name, [n]) => {
      if (name !== "message-back") return;
      latencies.push(now() - sentAt.get(n));
    }));
  }
  await sleep(500);
  const cpu0 = cpuMs();
  const { total, elapsed } = await paced((n) => {
    sentAt.set(n, now());
    socks[n % count].send(`42["message",${n},"m${n}"]`);
  });
  const deadline = now() + 3000;
  while (latencies.length < total && now() < deadline) await sleep(10);
  const cpu = cpuMs() - cpu0;
  console.log(JSON.stringify({
    mode: "echo", clients: count, rate, seconds, sent: total, delivered: latencies.length,
    relayed_per_s: +(latencies.length / elapsed).toFixed(1),
    server_cpu_ms_per_1000: +((cpu / total) * 1000).toFixed(2),
    p50_ms: quantile(latencies, 0.5), p99_ms: quantile(latencies, 0.99),
  }));
}

if (mode === "relay") await relay();
else await echo();
process.exit(0);
