"""python-socketio's AsyncClient (default options) against the marketplace (started by
run.sh and named by MARKETPLACE_URL): two users chat over REST while their sockets receive
new_message and message_read, unread counts match, and a third user receives nothing."""

import asyncio
import json
import os
import random
import re
import urllib.request

import pytest
import socketio
from events import Recorder

TIMEOUT = 10


def base() -> str:
    url = os.environ.get("MARKETPLACE_URL")
    if not url:
        pytest.fail("MARKETPLACE_URL is not set; run tests/clients/run.sh")
    return url


def rest(method: str, path: str, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(
        base() + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers=headers,
    )
    with urllib.request.urlopen(req, timeout=TIMEOUT) as res:
        return json.loads(res.read() or b"null")


def texted_code(phone):
    """The code of the latest SMS to `phone` in the outbox (MARKETPLACE_OUTBOX)."""
    with open(os.environ["MARKETPLACE_OUTBOX"]) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    text = [line for line in lines if line["to"] == phone][-1]["text"]
    return re.search(r"\b(\d{6})\b", text).group(1)


def signup(name):
    """A user who signed up and verified the phone (writes need a verified phone)."""
    phone = f"+49176{random.randrange(100_000_000):08d}"
    rest("POST", "/auth/signup", {"phone": phone, "password": "secret1", "name": name})
    body = {"phone": phone, "otp": texted_code(phone)}
    data = rest("POST", "/auth/verify-signup", body)["data"]
    return data["token"], data["user"]["_id"]


# The marketplace's live events.
EVENTS = ["new_message", "message_read", "car_viewed", "new_inquiry"]


async def connected(token):
    sio = socketio.AsyncClient()
    rec = Recorder(sio, EVENTS)
    await sio.connect(base(), auth={"token": token}, wait_timeout=TIMEOUT)
    return sio, rec


@pytest.mark.asyncio
async def test_a_bad_token_is_refused():
    sio = socketio.AsyncClient()
    refusals = []
    sio.on("connect_error", lambda data=None: refusals.append(data))
    with pytest.raises(socketio.exceptions.ConnectionError):
        await sio.connect(base(), auth={"token": "not-a-token"}, wait_timeout=TIMEOUT)
    assert "invalid" in refusals[0]["message"]


@pytest.mark.asyncio
async def test_two_users_chat_and_a_third_hears_nothing():
    (a, a_id), (b, b_id), (c, _) = signup("Py A"), signup("Py B"), signup("Py C")
    sa, ra = await connected(a)
    sb, rb = await connected(b)
    sc, rc = await connected(c)
    try:
        sent = rest("POST", "/messages/send", {"receiverId": b_id, "message": "hello from python"}, a)["data"]
        name, data = await rb.next()
        assert name == "new_message"
        assert data["senderId"] == a_id
        assert data["message"] == "hello from python"
        assert data["timestamp"] == sent["timestamp"]

        count = rest("GET", f"/messages/conversations/{a_id}/unread-count", token=b)["data"]
        assert count["unreadCount"] == 1
        assert rest("GET", "/messages/unread-count", token=b)["data"]["unreadCount"] == 1

        read = rest("PUT", f"/messages/{data['messageId']}/read", token=b)["data"]
        name, receipt = await ra.next()
        assert name == "message_read"
        assert receipt["messageId"] == sent["_id"]
        assert receipt["readAt"] == read["readAt"]
        assert rest("GET", "/messages/unread-count", token=b)["data"]["unreadCount"] == 0

        rest("POST", "/messages/send", {"receiverId": a_id, "message": "hi python"}, b)
        name, data = await ra.next()
        assert (name, data["senderId"]) == ("new_message", b_id)
        conversations = rest("GET", "/messages/conversations", token=a)["data"]
        assert conversations[0]["participant"]["_id"] == b_id
        assert conversations[0]["unreadCount"] == 1

        for rec in (ra, rb, rc):
            with pytest.raises(asyncio.TimeoutError):
                await rec.next(timeout=0.5)
    finally:
        for s in (sa, sb, sc):
            await s.disconnect()
