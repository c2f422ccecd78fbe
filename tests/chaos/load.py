"""The operator's load: bulk and single sends, and candidates answering over Socket.IO.
Every request that loses its connection to the SIGKILL is sent again, with the same
Idempotency-Key, once the server is back; only answered requests count as accepted."""
import threading
import time

import requests
import socketio
import socketio.exceptions

from server import API_KEY

BULKS, BULK_SIZE, SINGLES = 6, 500, 40


def retrying(method, url, deadline, on_resend=lambda: None, **kw):
    """The answer to one request, resent while the server is down (until `deadline`);
    `on_resend` is called before each resend."""
    while True:
        try:
            return requests.request(method, url, timeout=30, **kw)
        except requests.RequestException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
            on_resend()


class Messaging:
    def __init__(self, server, api_key, tag, deadline):
        self.base = server.messaging + "/api/v1"
        self.headers = {"X-API-Key": api_key}
        self.tag = tag
        self.deadline = deadline
        self.lock = threading.Lock()
        self.bulks = []      # (request number, answer data)
        self.singles = []    # (request body, answer data)
        self.refused = []    # (what, status, body): accepted requests never refused here
        self.resent = 0      # requests sent again after losing their connection
        self.answered = {}   # message id -> when its request was answered (monotonic)
        self.threads = []

    def _resend(self):
        with self.lock:
            self.resent += 1

    def _post(self, path, body, key):
        r = retrying("POST", f"{self.base}{path}", self.deadline, self._resend, json=body,
                     headers={**self.headers, "Idempotency-Key": key})
        if r.status_code not in (200, 201):
            with self.lock:
                self.refused.append((path, r.status_code, r.text[:300]))
            return None
        return r.json()["data"]

    def _bulk(self, number):
        recipients = [{"to": f"+1415{number}{n:06d}", "n": str(n)} for n in range(BULK_SIZE)]
        body = {"channel": "sms", "recipients": recipients,
                "content": {"text": f"chaos {self.tag} bulk {number} #{{{{n}}}}"}}
        data = self._post("/messages/bulk", body, f"{self.tag}-bulk-{number}")
        if data is not None:
            with self.lock:
                self.bulks.append((number, data))
                self.answered.update(dict.fromkeys(data["message_ids"], time.monotonic()))

    def _singles(self):
        for i in range(SINGLES):
            if i % 2:
                body = {"to": f"+1416555{i:04d}", "channel": "sms",
                        "content": {"text": f"chaos {self.tag} single {i}"}}
            else:
                body = {"to": f"chaos{i}@example.com", "channel": "email", "from": "Chaos",
                        "content": {"subject": f"chaos {i}", "text": f"chaos {self.tag} single {i}"}}
            data = self._post("/messages/send", body, f"{self.tag}-single-{i}")
            if data is not None:
                with self.lock:
                    self.singles.append((body, data))
                    self.answered[data["message_id"]] = time.monotonic()
            time.sleep(0.03)

    def start(self):
        def bulks(first):
            for number in range(first, BULKS, 2):
                self._bulk(number)
        self.threads = [threading.Thread(target=bulks, args=(0,)),
                        threading.Thread(target=bulks, args=(1,)),
                        threading.Thread(target=self._singles)]
        for t in self.threads:
            t.start()

    def join(self):
        for t in self.threads:
            t.join()

    @staticmethod
    def expected():
        return BULKS * BULK_SIZE + SINGLES

    def sent_texts(self):
        """(recipient, text) of every message the load asked for, each once."""
        out = set()
        for number in range(BULKS):
            out.update((f"+1415{number}{n:06d}", f"chaos {self.tag} bulk {number} #{n}")
                       for n in range(BULK_SIZE))
        for i in range(SINGLES):
            to = f"+1416555{i:04d}" if i % 2 else f"chaos{i}@example.com"
            out.add((to, f"chaos {self.tag} single {i}"))
        return out

    def accepted_ids(self):
        ids = set()
        for _, data in self.bulks:
            ids.update(data["message_ids"])
        for _, data in self.singles:
            ids.add(data["message_id"])
        return ids


def create_session(server, receiver_url, name, tag):
    r = requests.post(f"{server.interview}/api/v1/sessions", timeout=10,
                      headers={"X-API-Key": API_KEY, "X-Webhook-Secret": "chaos-secret"},
                      json={"candidate_name": name, "job_title": "Backend Engineer",
                            "job_description": "Rust and PostgreSQL services",
                            "experience_level": "senior", "max_questions": 50,
                            "time_limit_minutes": 1, "application_id": f"{tag}-{name}",
                            "webhook_url": f"{receiver_url}/interview"})
    r.raise_for_status()
    return r.json()


def start_session(server, session):
    r = requests.post(f"{server.interview}/api/v1/sessions/{session['id']}/start", timeout=10,
                      headers={"X-Session-Token": session["session_token"]})
    r.raise_for_status()


def join(server, token, timeout=5):
    """A connected client that has joined, and its session_joined payload."""
    sio = socketio.Client()
    joined = {}
    arrived = threading.Event()

    @sio.on("session_joined")
    def on_joined(data):
        joined.update(data)
        arrived.set()

    sio.connect(server.interview, wait_timeout=timeout)
    ack = sio.call("join_session", {"session_token": token}, timeout=timeout)
    if not (ack or {}).get("ok") or not arrived.wait(timeout):
        sio.disconnect()
        raise JoinFailed(f"join refused: {ack}")
    return sio, joined


class JoinFailed(Exception):
    """The join was not answered as it should be (the server went away, or refused)."""


# What a server going away mid-call looks like to a candidate: it connects and joins again.
# Anything else (a reply of the wrong shape, a bug here) is an error of the run.
SERVER_GONE = (socketio.exceptions.SocketIOError, JoinFailed, OSError)


class Candidate:
    """Answers one question at each time of `schedule` (monotonic seconds; later when the
    server is down), then asks to complete when `complete`, over Socket.IO; it connects and
    joins again whenever the server goes away."""

    def __init__(self, server, session, schedule, complete, deadline):
        self.server = server
        self.session = session
        self.schedule = schedule
        self.complete = complete
        self.deadline = deadline
        self.acked = []          # (message_id, content) of acknowledged answers
        self.rejoins = []        # (answers acknowledged before, session_joined) per reconnect
        self.completed = False
        self.errors = []
        self.thread = threading.Thread(target=self._run)

    def _step(self, sio, sent):
        """One answer or the completion; False when the server refused it."""
        if sent < len(self.schedule):
            time.sleep(max(0.0, self.schedule[sent] - time.monotonic()))
            content = self._content(sent)
            ack = sio.call("send_message", {"content": content}, timeout=3)
            if ack and ack.get("ok"):
                self.acked.append((ack["data"]["message_id"], content))
                return True
        else:
            ack = sio.call("complete", timeout=3)
            if ack and ack.get("ok"):
                self.completed = True
                return True
        self.errors.append(f"{self.session['id']}: refused {ack}")
        return False

    def _run(self):
        joins, sio = 0, None
        while time.monotonic() < self.deadline:
            if len(self.acked) >= len(self.schedule) and (self.completed or not self.complete):
                break
            try:
                if sio is None:
                    sio, joined = join(self.server, self.session["session_token"])
                    joins += 1
                    if joins > 1:
                        self.rejoins.append((list(self.acked), joined))
                if not self._step(sio, len(self.acked)):
                    break
            except SERVER_GONE:  # the server went away mid-call: connect again
                if sio is not None:
                    try:
                        sio.disconnect()
                    except Exception:
                        pass
                    sio = None
                time.sleep(0.2)
            except Exception as e:  # noqa: BLE001 - reported, not retried
                self.errors.append(f"{self.session['id']}: {type(e).__name__}: {e}")
                break
        if sio is not None:
            try:
                sio.disconnect()
            except SERVER_GONE:
                pass

    def expected_answers(self):
        """The answers of the schedule, in order: what the candidate must have had acknowledged."""
        return [self._content(n) for n in range(len(self.schedule))]

    def _content(self, n):
        return (f"Answer {n} ({self.session['id']}): I measured first, "
                "then cut latency by 60% in Rust.")

    def start(self):
        self.thread.start()
