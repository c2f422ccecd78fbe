// Socket.IO load tool over raw WebSockets (Engine.IO v4 / Socket.IO v5 frames), so the
// client side stays cheap and identical for both servers.
//   node load.mjs idle  URL PID COUNT        -> resident memory added by COUNT idle sockets
//   node load.mjs echo  URL PID CLIENTS INFLIGHT ROUNDTRIPS
//                                              -> server CPU ms per 1,000 round trips, p50/p99
//   node load.mjs rest  URL PID CONNECTIONS SECONDS LABEL
//                                              -> GET /rest/ping latency p50/p99/p99.9 over
//                                                 keep-alive connections, one request in
//                                                 flight each, 2 ms apart
import { readFileSync } from "node:fs";
import http from "node:http";
import WebSocket from "ws";

const [mode, base, pidArg, ...rest] = process.argv.slice(2);
const pid = Number(pidArg);
const wsUrl = base.replace(/^http/, "ws") + "/socket.io/?EIO=4&transport=websocket";
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
const cpuMs = () => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, USER_HZ = 100
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Opens one socket connected to namespace "/"; answers pings. */
function connect(onEvent) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
    ws.on("error", reject);
    // A server may drop a socket that did not join in time (connectTimeout); report it.
    ws.on("close", () => reject(new Error("closed before connect")));
    ws.on("message", (buf) => {
      const m = buf.toString();
      if (m === "2") return ws.send("3");
      if (m[0] === "0") return ws.send("40");
      if (m.startsWith("40")) return resolve(ws);
      if (m.startsWith("42[\"message-back\"") && onEvent) onEvent(m);
    });
  });
}

async function idle(count) {
  await sleep(500);
  const before = rssMb();
  const sockets = [];
  let failures = 0;
  while (sockets.length < count) {
    const n = Math.min(200, count - sockets.length);
    const batch = await Promise.allSettled(Array.from({ length: n }, () => connect()));
    for (const r of batch) {
      if (r.status === "fulfilled") sockets.push(r.value);
      else if (++failures > count / 10) throw new Error(`too many failed connects: ${r.reason}`);
    }
  }
  await sleep(3000); // let both servers settle (several ping rounds at 300 ms)
  const after = rssMb();
  console.log(JSON.stringify({ mode: "idle", sockets: sockets.length, rss_before_mb: +before.toFixed(1), rss_after_mb: +after.toFixed(1), added_mb: +(after - before).toFixed(1), retried_connects: failures }));
  sockets.forEach((s) => s.terminate());
  // Let the server finish tearing the sockets down, so the echo run that follows does
  // not pay for it.
  await sleep(3000);
}

async function echo(clients, inflight, total) {
  const latencies = [];
  let sent = 0;
  let done = 0;
  let finish;
  const finished = new Promise((r) => (finish = r));
  const socks = [];
  for (let c = 0; c < clients; c++) {
    const pending = [];
    const ws = await connect(() => {
      latencies.push(Number(process.hrtime.bigint() - pending.shift()) / 1e6);
      if (++done === total) finish();
      else if (sent < total) fire(ws, pending);
    });
    socks.push([ws, pending]);
  }
  function fire(ws, pending) {
    sent++;
    pending.push(process.hrtime.bigint());
    ws.send(`42["message",${sent},"payload"]`);
  }
  await sleep(300);
  const cpu0 = cpuMs();
  const t0 = Date.now();
  for (const [ws, pending] of socks) for (let k = 0; k < inflight && sent < total; k++) fire(ws, pending);
  await finished;
  const cpu = cpuMs() - cpu0;
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  console.log(JSON.stringify({
    mode: "echo", clients, inflight, round_trips: total, seconds: (Date.now() - t0) / 1000,
    server_cpu_ms_per_1000: +((cpu / total) * 1000).toFixed(2),
    p50_ms: +q(0.5).toFixed(3), p99_ms: +q(0.99).toFixed(3),
  }));
  socks.forEach(([ws]) => ws.terminate());
}

async function restProbe(connections, seconds, label) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL("/rest/ping", base);
  const get = () => new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    http.get(url, { agent }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t) / 1e6) : reject(new Error(`status ${res.statusCode}`))));
    }).on("error", reject);
  });
  const latencies = [];
  const until = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (Date.now() < until) {
      latencies.push(await get());
      await sleep(2);
    }
  }));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  console.log(JSON.stringify({
    mode: "rest", label, connections, requests: latencies.length,
    p50_ms: +q(0.5).toFixed(3), p99_ms: +q(0.99).toFixed(3), p999_ms: +q(0.999).toFixed(3),
  }));
}

if (mode === "idle") await idle(Number(rest[0] ?? 10000));
else if (mode === "rest") await restProbe(Number(rest[0] ?? 4), Number(rest[1] ?? 10), rest[2] ?? "");
else await echo(Number(rest[0] ?? 50), Number(rest[1] ?? 4), Number(rest[2] ?? 100000));
process.exit(0);
