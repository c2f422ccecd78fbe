"""The public API as the checks use it: accounts signed up through a node's own endpoints
(codes read from the nodes' outbox sandboxes), and a Socket.IO client that records events."""
import queue
import random
import re
import time

import requests
import socketio

TIMEOUT = 10


def phone():
    return f"+49176{random.randrange(10**8):08d}"


def code_for(cluster, to, deadline=10):
    """The latest six-digit code texted to `to`, from any node's outbox."""
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        texts = [m["text"] for m in cluster.outbox() if m.get("to") == to]
        if texts:
            return re.search(r"\b(\d{6})\b", texts[-1]).group(1)
        time.sleep(0.1)
    raise AssertionError(f"no code texted to {to}")


def call(method, url, token=None, **kw):
    headers = kw.pop("headers", {})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return requests.request(method, url, headers=headers, timeout=TIMEOUT, **kw)


def data(res):
    assert res.ok, f"{res.request.method} {res.url}: {res.status_code} {res.text[:300]}"
    return res.json()["data"]


class MarketplaceUser:
    """A marketplace account with a verified phone, signed up through `node`."""

    def __init__(self, cluster, node, name):
        self.phone = phone()
        base = node.url("marketplace")
        data(call("POST", f"{base}/auth/signup",
                  json={"phone": self.phone, "password": "secret1", "name": name}))
        signed = data(call("POST", f"{base}/auth/verify-signup",
                           json={"phone": self.phone, "otp": code_for(cluster, self.phone)}))
        self.token, self.id = signed["token"], signed["user"]["_id"]

    def get(self, node, path):
        return call("GET", node.url("marketplace") + path, self.token)

    def post(self, node, path, body=None):
        return call("POST", node.url("marketplace") + path, self.token, json=body)

    def send(self, node, to, text):
        return self.post(node, "/messages/send", {"receiverId": to.id, "message": text})


class IdentityUser:
    """An identity account (PIN 2468) signed up through `node`."""

    def __init__(self, cluster, node):
        self.phone = phone()
        base = node.url("identity")
        data(call("POST", f"{base}/auth/otp/send", json={"phone": self.phone, "purpose": "signup"}))
        temp = data(call("POST", f"{base}/auth/otp/verify", json={
            "phone": self.phone, "code": code_for(cluster, self.phone),
            "purpose": "signup"}))["temp_token"]
        signed = data(call("POST", f"{base}/auth/signup", json={
            "temp_token": temp, "pin": "2468", "handle": f"c_{random.randrange(10**8):08d}"}))
        self.token, self.refresh = signed["access_token"], signed["refresh_token"]

    def get(self, node, path):
        return call("GET", node.url("identity") + path, self.token)

    def post(self, node, path, body=None):
        return call("POST", node.url("identity") + path, self.token, json=body)


class Events:
    """Events recorded by a client, in arrival order."""

    def __init__(self):
        self.events = queue.Queue()

    def next(self, timeout=5):
        """The next event, or None after `timeout` seconds."""
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None


class Socket(Events):
    """A python-socketio client on the marketplace of `node` (a node or a proxy), recording
    the named events; transports=["polling"] keeps it from upgrading to a WebSocket."""

    def __init__(self, node, token, events=("new_message",), transports=None):
        super().__init__()
        self.sio = socketio.Client(reconnection=False)
        for name in events:
            self.sio.on(name, lambda payload=None, name=name: self.events.put((name, payload)))
        self.sio.connect(node.url("marketplace"), auth={"token": token}, wait_timeout=TIMEOUT,
                         transports=transports)

    def close(self):
        self.sio.disconnect()
