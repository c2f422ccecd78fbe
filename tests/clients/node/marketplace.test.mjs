// The official socket.io-client (default options) against the marketplace started by run.sh
// (MARKETPLACE_URL): two users chat over REST while their sockets receive new_message and
// message_read, unread counts match, and a third user receives nothing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { io } from "socket.io-client";

const url = process.env.MARKETPLACE_URL;

async function rest(method, path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  assert.ok(res.ok, `${method} ${path}: ${JSON.stringify(json)}`);
  return json.data;
}

// The code of the latest SMS to `phone` in the outbox (MARKETPLACE_OUTBOX).
function textedCode(phone) {
  const lines = readFileSync(process.env.MARKETPLACE_OUTBOX, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((l) => l.to === phone);
  return lines[lines.length - 1].text.match(/\b(\d{6})\b/)[1];
}

// A user who signed up and verified the phone (writes need a verified phone).
async function signup(name) {
  const phone = `+49176${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;
  await rest("POST", "/auth/signup", { phone, password: "secret1", name });
  const data = await rest("POST", "/auth/verify-signup", { phone, otp: textedCode(phone) });
  return { token: data.token, id: data.user._id };
}

function recorder(socket) {
  const queue = [];
  const waiters = [];
  for (const name of ["new_message", "message_read", "car_viewed", "new_inquiry"]) {
    socket.on(name, (data) => {
      queue.push([name, data]);
      waiters.splice(0).forEach((w) => w());
    });
  }
  return async function next(timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0) {
      if (Date.now() > deadline) return undefined;
      await new Promise((r) => { waiters.push(r); setTimeout(r, 100); });
    }
    return queue.shift();
  };
}

async function connected(token) {
  const socket = io(url, { forceNew: true, auth: { token } });
  const next = recorder(socket);
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  return { socket, next };
}

test("a bad token gets connect_error with a message", async () => {
  assert.ok(url, "MARKETPLACE_URL is not set; run tests/clients/run.sh");
  const socket = io(url, { forceNew: true, auth: { token: "not-a-token" }, reconnection: false });
  const err = await new Promise((resolve) => socket.once("connect_error", resolve));
  assert.match(err.message, /invalid/);
  socket.close();
});

test("two users chat, receipts arrive, counts match, a third user hears nothing", async () => {
  assert.ok(url, "MARKETPLACE_URL is not set; run tests/clients/run.sh");
  const [a, b, c] = [await signup("Node A"), await signup("Node B"), await signup("Node C")];
  const [la, lb, lc] = [await connected(a.token), await connected(b.token), await connected(c.token)];
  try {
    const sent = await rest("POST", "/messages/send", { receiverId: b.id, message: "hello from node" }, a.token);
    const [name, data] = await lb.next();
    assert.equal(name, "new_message");
    assert.equal(data.senderId, a.id);
    assert.equal(data.message, "hello from node");
    assert.equal(data.timestamp, sent.timestamp);

    const count = await rest("GET", `/messages/conversations/${a.id}/unread-count`, undefined, b.token);
    assert.equal(count.unreadCount, 1);

    const read = await rest("PUT", `/messages/${data.messageId}/read`, undefined, b.token);
    const [rname, receipt] = await la.next();
    assert.equal(rname, "message_read");
    assert.equal(receipt.messageId, sent._id);
    assert.equal(receipt.readAt, read.readAt);
    assert.equal((await rest("GET", "/messages/unread-count", undefined, b.token)).unreadCount, 0);

    await rest("POST", "/messages/send", { receiverId: a.id, message: "hi node" }, b.token);
    const [n2, d2] = await la.next();
    assert.deepEqual([n2, d2.senderId], ["new_message", b.id]);
    const conversations = await rest("GET", "/messages/conversations", undefined, a.token);
    assert.equal(conversations[0].participant._id, b.id);
    assert.equal(conversations[0].unreadCount, 1);

    for (const l of [la, lb, lc]) assert.equal(await l.next(500), undefined);
  } finally {
    for (const l of [la, lb, lc]) l.socket.close();
  }
});
