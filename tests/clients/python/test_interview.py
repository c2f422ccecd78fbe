"""python-socketio's AsyncClient against the interview service (started by run.sh and
named by INTERVIEW_URL / INTERVIEW_API_KEY): a whole interview over Socket.IO."""

import asyncio
import json
import os
import urllib.request

import pytest
import socketio
from events import Recorder

TIMEOUT = 10
GOOD = (
    "At my last job I rebuilt our billing service in Rust because it could not keep up. "
    "First I measured the hot paths, then moved them to Rust. As a result latency dropped by 60%."
)


def base() -> str:
    url = os.environ.get("INTERVIEW_URL")
    if not url:
        pytest.fail("INTERVIEW_URL is not set; run tests/clients/run.sh")
    return url


def rest(method: str, path: str, body=None, headers=None):
    req = urllib.request.Request(
        base() + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    with urllib.request.urlopen(req, timeout=TIMEOUT) as res:
        return json.loads(res.read() or b"null")


def create(max_questions=1):
    return rest(
        "POST",
        "/api/v1/sessions",
        {"candidate_name": "Py Client", "job_title": "Backend Engineer", "max_questions": max_questions},
        {"X-API-Key": os.environ["INTERVIEW_API_KEY"]},
    )


# Every server event the interview uses.
EVENTS = ["session_joined", "message", "score", "status_update", "interview_complete", "error", "typing"]


@pytest.mark.asyncio
@pytest.mark.parametrize("transports", [None, ["websocket"]])
async def test_interview_over_python_socketio(transports):
    s = create()
    sio = socketio.AsyncClient()
    rec = Recorder(sio, EVENTS)
    await sio.connect(base(), transports=transports, wait_timeout=TIMEOUT)
    try:
        await sio.emit("join_session", {"session_token": "unknown"})
        err = await rec.until("error")
        assert err["message"] == "unknown session token"

        await sio.emit("join_session", {"session_token": s["session_token"]})
        joined = await rec.until("session_joined")
        assert joined["session"]["id"] == s["id"]
        assert joined["session"]["status"] == "pending"

        started = await asyncio.to_thread(
            rest, "POST", f"/api/v1/sessions/{s['id']}/start", None, {"X-Session-Token": s["session_token"]}
        )
        assert started["status"] == "in_progress"
        assert (await rec.until("status_update"))["status"] == "in_progress"
        assert (await rec.until("message"))["message"]["message_type"] == "greeting"
        question = (await rec.until("message"))["message"]
        assert question["message_type"] == "question"
        assert isinstance(question["total_questions"], int)
        assert isinstance(question["suggestions"], list)

        ack = await sio.call("send_message", {"content": GOOD}, timeout=TIMEOUT)
        assert ack["ok"] is True
        assert (await rec.until("typing"))["is_typing"] is True
        score = (await rec.until("score"))["score"]
        assert score["composite_score"] > 50
        assert isinstance(score["summary"], str)
        report = (await rec.until("interview_complete"))["report"]
        assert report["session_id"] == s["id"]
        assert report["grade"] in ["A", "B", "C", "D", "F"]
    finally:
        await sio.disconnect()


@pytest.mark.asyncio
async def test_pause_and_resume_events_reach_both_clients():
    s = create(max_questions=3)
    a, b = socketio.AsyncClient(), socketio.AsyncClient()
    ra, rb = Recorder(a, EVENTS), Recorder(b, EVENTS)
    for sio in (a, b):
        await sio.connect(base(), transports=["websocket"], wait_timeout=TIMEOUT)
    try:
        for sio, rec in ((a, ra), (b, rb)):
            await sio.emit("join_session", {"session_token": s["session_token"]})
            await rec.until("session_joined")
        await asyncio.to_thread(
            rest, "POST", f"/api/v1/sessions/{s['id']}/start", None, {"X-Session-Token": s["session_token"]}
        )
        await a.emit("pause")
        for rec in (ra, rb):
            while (await rec.until("status_update"))["status"] != "paused":
                pass
        await b.emit("resume")
        for rec in (ra, rb):
            assert (await rec.until("status_update"))["status"] == "in_progress"
    finally:
        await a.disconnect()
        await b.disconnect()
