// The official socket.io-client against the socketio_echo example server.
// The server binary comes from SOCKETIO_ECHO_BIN, else
// $CARGO_TARGET_DIR/debug/examples/socketio_echo (CARGO_TARGET_DIR defaults
// to the repository's target/).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { io } from "socket.io-client";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const bin =
  process.env.SOCKETIO_ECHO_BIN ??
  path.join(process.env.CARGO_TARGET_DIR ?? path.join(repo, "target"), "debug/examples/socketio_echo");

let server;
let url;

async function freePort() {
  const srv = createServer();
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  const { port } = srv.address();
  srv.close();
  await once(srv, "close");
  return port;
}

before(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  server = spawn(bin, [], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  await new Promise((resolve, reject) => {
    server.on("error", reject);
    server.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
    server.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("listening")) resolve();
    });
  });
});

after(() => {
  server?.kill();
});

// Resolves with the arguments of the next `event`, or fails after 5 s.
function next(emitter, event) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within 5s`)), 5000);
    emitter.once(event, (...args) => {
      clearTimeout(timer);
      resolve(args);
    });
  });
}

function connect(nsp = "/", opts = {}) {
  const socket = io(url + nsp, { forceNew: true, reconnection: false, ...opts });
  const auth = next(socket, "auth");
  return { socket, auth };
}

test("default options connect over polling and upgrade to websocket", async () => {
  const { socket, auth } = connect("/", { auth: { token: "abc" } });
  const upgraded = next(socket.io, "open").then(() => next(socket.io.engine, "upgrade"));
  await next(socket, "connect");
  assert.deepEqual(await auth, [{ token: "abc" }]);
  await upgraded;
  assert.equal(socket.io.engine.transport.name, "websocket");
  socket.emit("message", "after upgrade", 42);
  assert.deepEqual(await next(socket, "message-back"), ["after upgrade", 42]);
  socket.disconnect();
});

for (const transports of [["websocket"], ["polling"]]) {
  const label = transports.join("+");

  test(`${label}: auth echo without auth and on /custom`, async () => {
    const main = connect("/", { transports });
    assert.deepEqual(await main.auth, [{}]);
    const custom = connect("/custom", { transports, auth: { token: "xyz" } });
    assert.deepEqual(await custom.auth, [{ token: "xyz" }]);
    main.socket.disconnect();
    custom.socket.disconnect();
  });

  test(`${label}: message, ack, binary`, async () => {
    const { socket, auth } = connect("/", { transports });
    await auth;

    socket.emit("message", 1, "2", { 3: [true] });
    assert.deepEqual(await next(socket, "message-back"), [1, "2", { 3: [true] }]);

    const acked = await new Promise((resolve) => socket.emit("message-with-ack", 1, "2", (...args) => resolve(args)));
    assert.deepEqual(acked, [1, "2"]);

    socket.emit("message", Buffer.from([1, 2, 3]), { nested: Buffer.from([4, 5]) });
    const [bin, obj] = await next(socket, "message-back");
    assert.deepEqual([...bin], [1, 2, 3]);
    assert.deepEqual([...obj.nested], [4, 5]);

    const binAck = await socket.timeout(5000).emitWithAck("message-with-ack", Buffer.from([9, 8]));
    assert.deepEqual([...binAck], [9, 8]);

    socket.disconnect();
    assert.equal(socket.connected, false);
  });
}

test("unknown namespace is refused with connect_error", async () => {
  const socket = io(url + "/random", { forceNew: true, reconnection: false, transports: ["websocket"] });
  const [err] = await next(socket, "connect_error");
  assert.equal(err.message, "Invalid namespace");
  socket.close();
});

test("client disconnect is seen as io client disconnect", async () => {
  const { socket, auth } = connect("/", { transports: ["websocket"] });
  await auth;
  const reason = next(socket, "disconnect");
  socket.disconnect();
  const [why] = await reason;
  assert.equal(why, "io client disconnect");
});
