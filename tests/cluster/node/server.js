"use strict";
// Reference Node.js socket.io node for Switchboard <-> @socket.io/redis-adapter interop tests.
//
// Env:
//   REDIS_URL  redis URL (default redis://127.0.0.1:6379)
//   PORT       HTTP/socket.io port (default 0 = pick a free one; the chosen port is printed)
//   ROOM       room the built-in probe client joins (default "r1")
//   ADAPTER    "classic" (createAdapter, default) or "sharded" (createShardedAdapter)
//   KEY        the classic adapter's channel prefix (default "socket.io"); a Switchboard service
//              in the same fleet uses its [realtime] adapter key (switchboard/<service>)
//   PROBE      "1" (default) starts a socket.io-client connected to this server that joins ROOM
//              and prints every event it receives; "0" disables it
//
// stdout protocol (one JSON object per line, easy to parse from a test harness):
//   {"ready":true,"port":N,"adapterUid":"...","probeSid":"..."}  once everything is connected
//   {"probe":"event","event":"chat","args":["hello"]}             each event the probe client receives
//   {"server":"joined","sid":"...","room":"r1"}                    each join done by the server
//
// HTTP control endpoints (GET, on the same port as socket.io):
//   /emit?room=r1&event=chat&args=["hello"]   io.to(room).emit(event, ...args)   (args: JSON array, default [])
//                                             room may repeat: room=r1&room=r2 -> io.to(["r1","r2"])
//   /emit?event=chat&args=[1]                 (no room) io.emit(event, ...args)  -> broadcast to all nodes
//   /emit-ack?room=r1&event=q&timeout=2000    io.to(room).timeout(t).emit(...) with ack; replies JSON
//                                             {"error":null|"operation has timed out","responses":[...]}
//   /fetch-sockets?room=r1                    io.in(room).fetchSockets(); replies {"sockets":[{id,rooms}]} or {"error"}
//   /server-count                             adapter.serverCount() (classic: PUBSUB NUMSUB socket.io-request#/#)
//   /join?sid=SID&room=r2                     io.in(sid).socketsJoin(room)       (cluster-wide SOCKETS_JOIN / REMOTE_JOIN)
//   /health                                   "ok"
//
// socket.io events a client (e.g. a Switchboard test client connected to THIS server) may send:
//   "join"  (room, ack?)                      socket.join(room)
//   "emit-to-room" (room, event, ...args)     io.to(room).emit(event, ...args)
const http = require("http");
const { Server } = require("socket.io");
const { io: ioc } = require("socket.io-client");
const { createClient } = require("redis");
const { createAdapter, createShardedAdapter } = require("@socket.io/redis-adapter");

const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const PORT = parseInt(process.env.PORT || "0", 10);
const ROOM = process.env.ROOM || "r1";
const ADAPTER = process.env.ADAPTER || "classic";
const PROBE = (process.env.PROBE || "1") !== "0";
const KEY = process.env.KEY || "socket.io";

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function main() {
  const pubClient = createClient({ url: REDIS_URL });
  const subClient = pubClient.duplicate();
  pubClient.on("error", (e) => console.error("redis pub error", e.message));
  subClient.on("error", (e) => console.error("redis sub error", e.message));
  await Promise.all([pubClient.connect(), subClient.connect()]);

  const adapter =
    ADAPTER === "sharded"
      ? createShardedAdapter(pubClient, subClient)
      : createAdapter(pubClient, subClient, { key: KEY });

  const httpServer = http.createServer();
  const io = new Server(httpServer, { adapter });

  io.on("connection", (socket) => {
    const room = socket.handshake.query.room;
    if (typeof room === "string" && room) {
      socket.join(room);
      out({ server: "joined", sid: socket.id, room });
    }
    socket.on("join", (room, ack) => {
      socket.join(room);
      out({ server: "joined", sid: socket.id, room });
      if (typeof ack === "function") ack("ok");
    });
    socket.on("emit-to-room", (room, event, ...args) => {
      io.to(room).emit(event, ...args);
    });
  });

  // plain HTTP control endpoints; socket.io only handles /socket.io/ requests
  httpServer.on("request", (req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname.startsWith("/socket.io")) return; // handled by engine.io
    try {
      if (url.pathname === "/health") {
        res.end("ok");
      } else if (url.pathname === "/emit") {
        const event = url.searchParams.get("event") || "chat";
        const args = JSON.parse(url.searchParams.get("args") || "[]");
        const rooms = url.searchParams.getAll("room");
        (rooms.length ? io.to(rooms) : io).emit(event, ...args);
        res.end("ok");
      } else if (url.pathname === "/emit-ack") {
        // broadcast with acknowledgements: every node must answer with BROADCAST_CLIENT_COUNT
        const event = url.searchParams.get("event") || "chat";
        const args = JSON.parse(url.searchParams.get("args") || "[]");
        const rooms = url.searchParams.getAll("room");
        const timeout = parseInt(url.searchParams.get("timeout") || "2000", 10);
        (rooms.length ? io.to(rooms) : io)
          .timeout(timeout)
          .emit(event, ...args, (err, responses) => {
            res.setHeader("content-type", "application/json");
            res.end(JSON.stringify({ error: err ? err.message : null, responses }));
          });
      } else if (url.pathname === "/fetch-sockets") {
        const rooms = url.searchParams.getAll("room");
        (rooms.length ? io.in(rooms) : io)
          .fetchSockets()
          .then(
            (sockets) => ({ sockets: sockets.map((s) => ({ id: s.id, rooms: [...s.rooms] })) }),
            (e) => ({ error: e.message })
          )
          .then((body) => {
            res.setHeader("content-type", "application/json");
            res.end(JSON.stringify(body));
          });
      } else if (url.pathname === "/server-count") {
        io.of("/").adapter.serverCount().then((n) => res.end(String(n)));
      } else if (url.pathname === "/join") {
        io.in(url.searchParams.get("sid")).socketsJoin(url.searchParams.get("room"));
        res.end("ok");
      } else {
        res.statusCode = 404;
        res.end("not found");
      }
    } catch (e) {
      res.statusCode = 400;
      res.end(String(e && e.message));
    }
  });

  await new Promise((resolve) => httpServer.listen(PORT, "127.0.0.1", resolve));
  const port = httpServer.address().port;

  let probeSid = null;
  let probe = null;
  if (PROBE) {
    probe = ioc(`http://127.0.0.1:${port}`, {
      query: { room: ROOM },
      transports: ["websocket"],
    });
    probe.onAny((event, ...args) => {
      // an event sent with an ack request: answer it so /emit-ack gets a response
      const last = args[args.length - 1];
      if (typeof last === "function") {
        args.pop();
        last({ from: "node-probe", event });
      }
      out({
        probe: "event",
        event,
        // Buffers are printed as {"$bin":"<hex>"} so binary payloads can be checked from stdout
        args: JSON.parse(
          JSON.stringify(args, (k, v) =>
            v && v.type === "Buffer" && Array.isArray(v.data)
              ? { $bin: Buffer.from(v.data).toString("hex") }
              : v
          )
        ),
      });
    });
    await new Promise((resolve) => probe.once("connect", resolve));
    probeSid = probe.id;
    // wait until the server side has processed the join
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  out({ ready: true, port, adapterUid: io.of("/").adapter.uid, probeSid, adapter: ADAPTER });

  const shutdown = async () => {
    if (probe) probe.close();
    io.close();
    await Promise.allSettled([pubClient.quit(), subClient.quit()]);
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
