// The official socket.io-client against the interview service started by run.sh
// (INTERVIEW_URL, INTERVIEW_API_KEY): a whole interview over Socket.IO.

import { test } from "node:test";
import assert from "node:assert/strict";
import { io } from "socket.io-client";

const url = process.env.INTERVIEW_URL;
const apiKey = process.env.INTERVIEW_API_KEY;
const GOOD =
  "At my last job I rebuilt our billing service in Rust because it could not keep up. " +
  "First I measured the hot paths, then moved them to Rust. As a result latency dropped by 60%.";

async function create(maxQuestions = 1) {
  const res = await fetch(`${url}/api/v1/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": apiKey },
    body: JSON.stringify({ candidate_name: "Node Client", job_title: "Backend Engineer", max_questions: maxQuestions }),
  });
  assert.equal(res.status, 201);
  return res.json();
}

function recorder(socket) {
  const queue = [];
  const waiters = [];
  for (const name of ["session_joined", "message", "score", "status_update", "interview_complete", "error", "typing"]) {
    socket.on(name, (data) => {
      queue.push([name, data]);
      waiters.splice(0).forEach((w) => w());
    });
  }
  return async function until(name) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const i = queue.findIndex(([n]) => n === name);
      if (i >= 0) return queue.splice(0, i + 1).pop()[1];
      if (Date.now() > deadline) throw new Error(`no ${name} event`);
      await new Promise((r) => { waiters.push(r); setTimeout(r, 200); });
    }
  };
}

for (const transports of [undefined, ["websocket"]]) {
  test(`interview over socket.io-client (${transports ? "websocket" : "default transports"})`, async () => {
    assert.ok(url, "INTERVIEW_URL is not set; run tests/clients/run.sh");
    const s = await create();
    const socket = io(url, { forceNew: true, ...(transports ? { transports } : {}) });
    const until = recorder(socket);
    try {
      socket.emit("join_session", { session_token: "unknown" });
      assert.equal((await until("error")).message, "unknown session token");
      socket.emit("join_session", { session_token: s.session_token });
      const joined = await until("session_joined");
      assert.equal(joined.session.id, s.id);

      const res = await fetch(`${url}/api/v1/sessions/${s.id}/start`, {
        method: "POST",
        headers: { "X-Session-Token": s.session_token },
      });
      assert.equal(res.status, 200);
      assert.equal((await until("status_update")).status, "in_progress");
      assert.equal((await until("message")).message.message_type, "greeting");
      const q = (await until("message")).message;
      assert.equal(q.message_type, "question");
      assert.equal(typeof q.total_questions, "number");
      assert.ok(Array.isArray(q.suggestions));

      const ack = await socket.timeout(10_000).emitWithAck("send_message", { content: GOOD });
      assert.equal(ack.ok, true);
      assert.equal((await until("typing")).is_typing, true);
      const { score } = await until("score");
      assert.ok(score.composite_score > 50);
      assert.equal(typeof score.summary, "string");
      const { report } = await until("interview_complete");
      assert.equal(report.session_id, s.id);
      assert.ok(["A", "B", "C", "D", "F"].includes(report.grade));
    } finally {
      socket.close();
    }
  });
}
