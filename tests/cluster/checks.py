"""What tests/cluster shows, each through the public API of a fresh cluster.

A check is a function of the running Cluster, registered with @check(settings): the
SWITCHBOARD__ settings (without the prefix) it needs on every node. It raises
AssertionError with what it saw when the cluster misbehaves; what it prints is its report."""
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime

from clients import Events, IdentityUser, MarketplaceUser, Socket, call, data

CHECKS = []


@dataclass
class Check:
    name: str
    run: object
    settings: dict = field(default_factory=dict)


def check(**settings):
    def register(fn):
        CHECKS.append(Check(fn.__name__, fn, settings))
        return fn
    return register


def say(text):
    print(f"    {text}", flush=True)


HANDLE_CHECKS = 7  # not a multiple of three: no node can pass by counting alone


@check(SERVICES__IDENTITY__RATE_LIMITS__HANDLE_CHECK__LIMIT=HANDLE_CHECKS,
       SERVICES__IDENTITY__RATE_LIMITS__HANDLE_CHECK__WINDOW_SECS=600)
def rate_limit_holds_across_nodes(cluster):
    """GET /users/handle/check (identity, per address) round-robin over the nodes: N allowed
    in total, every later request refused with 429."""
    allowed = {n.id: 0 for n in cluster.nodes}
    statuses = []
    for i in range(3 * HANDLE_CHECKS):
        node = cluster.nodes[i % len(cluster.nodes)]
        res = call("GET", node.url("identity") + f"/users/handle/check?handle=free_{i}")
        statuses.append(res.status_code)
        if res.status_code == 200:
            allowed[node.id] += 1
    say(f"limit {HANDLE_CHECKS}: allowed per node {allowed}")
    assert set(statuses) <= {200, 429}, f"unexpected statuses {statuses}"
    total = sum(allowed.values())
    assert total == HANDLE_CHECKS, f"{total} allowed in total, not {HANDLE_CHECKS}"
    assert statuses.index(429) == HANDLE_CHECKS and 200 not in statuses[HANDLE_CHECKS:], \
        f"refusals out of order: {statuses}"


def refused_after_logout(label, get_on_c, logout_on_a, wait_secs):
    """Uses the token on node C (so C has its session cached), logs out on node A, and
    asks C again at once; when C still answers, polls to report how long it took."""
    assert get_on_c().status_code == 200, f"{label}: token not accepted on node-c before logout"
    res = logout_on_a()
    assert res.ok, f"{label}: logout on node-a answered {res.status_code} {res.text[:200]}"
    first = get_on_c().status_code
    if first == 401:
        say(f"{label}: node-c refused the token on its next request (401)")
        return None
    start = time.monotonic()
    while time.monotonic() - start < wait_secs and get_on_c().status_code != 401:
        time.sleep(0.25)
    took = time.monotonic() - start
    return (f"{label}: node-c answered {first} to the next request after the logout on "
            f"node-a; refused {took:.1f}s later" if took < wait_secs else
            f"{label}: node-c still accepted the token {wait_secs}s after the logout")


@check()
def logout_on_a_refused_on_c(cluster):
    """identity POST /auth/logout and marketplace POST /auth/logout on node A; the token's
    next request on node C (GET /users/me, GET /auth/me) is refused with 401."""
    a, c = cluster["a"], cluster["c"]
    # The session cache's time to live (30 s by default): the longest a node could go on.
    wait = 35
    ident = IdentityUser(cluster, a)
    seller = MarketplaceUser(cluster, a, "Logout")
    failures = [f for f in (
        refused_after_logout("identity", lambda: ident.get(c, "/users/me"),
                             lambda: ident.post(a, "/auth/logout",
                                                {"refresh_token": ident.refresh}), wait),
        refused_after_logout("marketplace", lambda: seller.get(c, "/auth/me"),
                             lambda: seller.post(a, "/auth/logout"), wait),
    ) if f]
    assert not failures, "; ".join(failures)


@check()
def chat_message_reaches_socket_on_other_node(cluster):
    """Marketplace POST /messages/send through node A; the receiver's Socket.IO clients on
    node B (and, as a control, node A) get `new_message`."""
    a, b = cluster["a"], cluster["b"]
    sender = MarketplaceUser(cluster, a, "Sender")
    receiver = MarketplaceUser(cluster, b, "Receiver")
    on_a, on_b = Socket(a, receiver.token), Socket(b, receiver.token)
    try:
        sent = data(sender.send(a, receiver, "across the cluster"))
        got = {"node-a": on_a.next(), "node-b": on_b.next()}
        for where, event in got.items():
            ok = event and event[0] == "new_message" and \
                event[1].get("messageId") == sent["_id"]
            say(f"socket on {where}: {'new_message' if ok else event or 'nothing in 5 s'}")
        assert got["node-a"], "the control socket on node-a (the sender's node) got nothing"
        assert got["node-b"], "the receiver's socket on node-b got nothing in 5 s"
        for where, event in got.items():
            assert event[0] == "new_message" and event[1].get("messageId") == sent["_id"], \
                f"{where} heard {event}, not new_message {sent['_id']}"
        assert got["node-b"][1].get("message") == "across the cluster", got["node-b"]
    finally:
        on_a.close()
        on_b.close()


@check()
def sigkill_leaves_other_nodes_serving(cluster):
    """Reads (GET /auth/me) and message sends on every node from four threads; node A, which
    runs the conversation's actor, is killed with SIGKILL a second in. Every request to B and
    C succeeds before and after, well within the relay's timeout (the first send after the
    kill takes the conversation over from the dead node at once), and every send a node
    accepted (A's before it died included) is in the conversation, with at most the sends A
    was answering when it died besides (their outcome is unknown)."""
    a, survivors = cluster["a"], [cluster["b"], cluster["c"]]
    sender = MarketplaceUser(cluster, cluster["b"], "Sender")
    receiver = MarketplaceUser(cluster, cluster["c"], "Receiver")
    stop, killing = threading.Event(), threading.Event()
    accepted, errors, refused_on_a, unknown, slowest = [], [], [], [], [0.0]
    lock = threading.Lock()
    # The first send claims the conversation: through A, so A's death takes its owner away.
    accepted.append(data(sender.send(a, receiver, "first, through node-a"))["_id"])

    def traffic(worker):
        i = 0
        while not stop.is_set():
            node = cluster.nodes[(worker + i) % len(cluster.nodes)]
            i += 1
            started = time.monotonic()
            try:
                res = (sender.send(node, receiver, f"w{worker} #{i}") if i % 2 else
                       sender.get(node, "/auth/me"))
            except OSError as e:  # requests' ConnectionError is an OSError
                res = e
            took = time.monotonic() - started
            with lock:
                if node is not a and killing.is_set():
                    slowest[0] = max(slowest[0], took)
                if not isinstance(res, OSError) and res.ok:
                    if res.request.method == "POST":
                        accepted.append(res.json()["data"]["_id"])
                elif node is a and killing.is_set():
                    refused_on_a.append(res)
                    # Refused connections were never served; one cut short may have been.
                    if i % 2 and "refused" not in str(res):
                        unknown.append(res)
                else:
                    errors.append(f"{node.id}: {getattr(res, 'status_code', res)}")

    threads = [threading.Thread(target=traffic, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    time.sleep(1)
    # Requests to A from here on may fail: those in flight when it dies included.
    killing.set()
    a.kill()
    killed_at = len(accepted)
    time.sleep(3)
    stop.set()
    for t in threads:
        t.join()
    say(f"sends accepted: {killed_at} before the kill, {len(accepted) - killed_at} after; "
        f"{len(refused_on_a)} requests to the dead node failed as expected; the slowest "
        f"answer of a live node after the kill took {slowest[0] * 1000:.0f} ms")
    assert not errors, f"requests to live nodes failed: {errors[:10]}"
    assert slowest[0] < 5, f"a live node took {slowest[0]:.1f} s to answer after the kill"
    assert len(accepted) > killed_at, "no send was accepted after the kill"
    for node in survivors:
        assert node.healthy(), f"{node.id} is not healthy after node-a's death"
    # Every accepted send is stored: the receiver's unread count, asked on each survivor.
    for node in survivors:
        count = data(receiver.get(node, f"/messages/conversations/{sender.id}/unread-count"))
        stored = count["unreadCount"]
        assert len(accepted) <= stored <= len(accepted) + len(unknown), \
            f"{node.id}: {stored} stored, {len(accepted)} accepted, {len(unknown)} unanswered"
    say(f"stored {stored}: the {len(accepted)} accepted and {stored - len(accepted)} of the "
        f"{len(unknown)} sends node-a did not answer")
    # And the survivors still work together: a message sent via B reaches a socket on C.
    on_c = Socket(cluster["c"], receiver.token)
    try:
        after = data(sender.send(cluster["b"], receiver, "after the kill"))
        event = on_c.next()
        say(f"after the kill, a send via node-b reached the socket on node-c: {bool(event)}")
        assert event and event[0] == "new_message", f"node-c's socket heard {event}"
        assert event[1].get("messageId") == after["_id"], f"node-c heard {event}"
        assert event[1].get("message") == "after the kill", f"node-c heard {event}"
    finally:
        on_c.close()


@check()
def proxies_keep_sockets_on_one_node(cluster):
    """docs/scaling.md's nginx and HAProxy configurations in front of the cluster: a
    polling-only and an upgrading Socket.IO client connected through each hear every message
    sent through it, and identity's /health is answered by more than one node."""
    from proxies import Proxy  # the proxies are looked up only when this check runs

    for kind in ("nginx", "haproxy"):
        proxy = Proxy(kind, cluster)
        sockets = []
        try:
            nodes = {call("GET", proxy.url("identity") + "/health").json().get("node")
                     for _ in range(6)}
            sender = MarketplaceUser(cluster, proxy, f"{kind} sender")
            receiver = MarketplaceUser(cluster, proxy, f"{kind} receiver")
            sockets = [Socket(proxy, receiver.token, transports=["polling"]),
                       Socket(proxy, receiver.token)]
            sent = []
            for i in range(5):
                sent.append(data(sender.send(proxy, receiver, f"{kind} {i}"))["_id"])
                time.sleep(0.2)  # each event its own poll
            for s in sockets:
                heard = [s.next() for _ in sent]
                ids = [e[1]["messageId"] if e else None for e in heard]
                transport = s.sio.transport()
                say(f"{kind}, {transport}: heard {sum(i is not None for i in ids)}/{len(sent)}")
                assert ids == sent, f"{kind}, {transport}: heard {ids}, sent {sent}"
                assert s.sio.connected, f"{kind}, {transport}: disconnected"
            say(f"{kind}: identity /health answered by {sorted(map(str, nodes))}")
            assert len(nodes) > 1, f"{kind}: identity not balanced over the nodes: {nodes}"
        finally:
            for s in sockets:
                s.close()
            proxy.close()


@check()
def health_reports_node_and_redis(cluster):
    """Every service of every node answers /health with its node id and the database and
    Redis up; with Redis stopped they stay healthy (200) and say Redis is down, marketplace
    sign-in is refused (503) and an authenticated read goes on."""
    a = cluster["a"]
    user = MarketplaceUser(cluster, a, "Outage")
    for node in cluster.nodes:
        for service in node.ports:
            body = call("GET", node.url(service) + "/health").json()
            assert body.get("node") == node.id, f"{node.id} {service}: node {body.get('node')}"
            checks = {k: v["status"] for k, v in body.get("checks", {}).items()}
            assert checks == {"database": "up", "redis": "up"}, f"{node.id} {service}: {checks}"
    say("every service of every node names its node, database and Redis up")
    cluster.redis.close()
    res = call("GET", a.url("marketplace") + "/health")
    assert res.status_code == 200, f"/health answered {res.status_code} with Redis down"
    assert res.json()["checks"]["redis"]["status"] == "down", res.json()["checks"]
    login = call("POST", a.url("marketplace") + "/auth/login",
                 json={"phone": user.phone, "password": "secret1"})
    me = user.get(cluster["b"], "/auth/me")
    say(f"Redis down: /health 200 (redis down), sign-in {login.status_code}, "
        f"GET /auth/me {me.status_code}")
    assert login.status_code == 503, f"sign-in answered {login.status_code} with Redis down"
    assert me.status_code == 200, f"a read answered {me.status_code} with Redis down"


INTERVIEW_KEY = "cluster-interview-key"
LEASE_SECS = 3


def interview(node, method, path, body=None):
    return call(method, node.url("interview") + "/api/v1" + path, json=body,
                headers={"X-API-Key": INTERVIEW_KEY})


def interview_ok(node, method, path, body=None):
    """The interview API answers without an envelope."""
    res = interview(node, method, path, body)
    assert res.ok, f"{method} {path} on {node.id}: {res.status_code} {res.text[:300]}"
    return res.json()


def live_sessions(node):
    return call("GET", node.url("interview") + "/api/v1/health").json()["active_sessions"]


# A command forwarded to the dead owner waits this long before the survivor answers it failed.
FORWARD_TIMEOUT_MS = 2000


@check(SERVICES__INTERVIEW__API_KEY=INTERVIEW_KEY, CLUSTER__LEASE_SECS=LEASE_SECS,
       CLUSTER__FORWARD_TIMEOUT_MS=FORWARD_TIMEOUT_MS, JOBS__POLL_INTERVAL_MS=250)
def interview_timer_finishes_on_another_node(cluster):
    """An interview started through node A (one minute's time limit) is answered once through
    node B (forwarded to its owner); its owner is killed with SIGKILL while a question waits.
    The next answer through a survivor is taken at once (the survivor sees the owner gone
    from the bus and takes the session over), and the session's timer, running there now,
    ends it at the stored deadline (completion_reason time_limit, within 1.5 s)."""
    a, b = cluster["a"], cluster["b"]
    created = interview_ok(a, "POST", "/sessions", {
        "candidate_name": "Ada Lovelace", "job_title": "Backend Engineer",
        "job_description": "Build services in Rust with PostgreSQL.",
        "experience_level": "senior", "max_questions": 50, "time_limit_minutes": 1})
    sid = created["id"]
    interview_ok(a, "POST", f"/sessions/{sid}/start", {})
    answer = {"content": "I rebuilt a billing service in Rust; latency fell by 60 %."}
    first = interview(b, "POST", f"/sessions/{sid}/messages", answer)
    assert first.ok, f"an answer through node-b: {first.status_code} {first.text[:200]}"
    owners = [n for n in cluster.nodes if live_sessions(n)]
    assert len(owners) == 1, f"session actors on {[n.id for n in owners]}, not on one node"
    owner = owners[0]
    owner.kill()
    killed = time.monotonic()
    survivors = [n for n in cluster.nodes if n is not owner]
    say(f"{owner.id} owned the session and was killed; survivors {[n.id for n in survivors]}")
    # A survivor takes the session over at the first answer (before, it waited for the
    # lease to lapse: the loop stays, so a failure says how long it took).
    until, taken, refused = killed + LEASE_SECS * 4 + 10, None, []
    while time.monotonic() < until and not taken:
        res = interview(survivors[-1], "POST", f"/sessions/{sid}/messages", answer)
        if res.ok:
            taken = res
        else:
            refused.append(res.status_code)
            time.sleep(0.5)
    say(f"answers through {survivors[-1].id} before the takeover: {refused}")
    assert taken, f"no survivor took an answer {until - killed:.0f}s after the kill"
    assert not refused, f"answers refused before the takeover: {refused}"
    adopters = [n.id for n in survivors if live_sessions(n)]
    say(f"adopted by {adopters} {time.monotonic() - killed:.1f}s after the kill")
    session = interview_ok(survivors[0], "GET", f"/sessions/{sid}")
    deadline = parse_time(session["started_at"]) + 60
    while time.time() < deadline + 15 and session["status"] != "completed":
        time.sleep(0.5)
        session = interview_ok(survivors[0], "GET", f"/sessions/{sid}")
    assert session["status"] == "completed", f"still {session['status']} 15 s after its deadline"
    report = interview_ok(survivors[0], "GET", f"/sessions/{sid}/report")
    off = parse_time(session["completed_at"]) - deadline
    say(f"completed ({report.get('completion_reason')}) {off:+.1f}s from its deadline")
    assert report.get("completion_reason") == "time_limit", report.get("completion_reason")
    assert abs(off) <= 1.5, f"ended {off:+.1f}s from its deadline"


def parse_time(text):
    """Seconds since the epoch of an RFC 3339 time."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class Receiver:
    """A webhook receiver on a loopback port that answers 200 and records, in arrival order,
    each delivery's id, event type and message id."""

    def __init__(self):
        import http.server
        import json as jsonlib
        self.calls, self.lock = [], threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = jsonlib.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with receiver.lock:
                    receiver.calls.append((self.headers["X-Service-Delivery-Id"],
                                           body["type"], body["data"]["message_id"]))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def seen(self):
        with self.lock:
            return list(self.calls)

    def close(self):
        self.server.shutdown()


def endpoints_running(node):
    res = call("GET", node.url("messaging") + "/health").json()
    return res["details"]["webhook_endpoints_running"]


WEBHOOK_MESSAGES = 250  # two events each: 500 deliveries


@check(SERVICES__MESSAGING__WEBHOOKS__ALLOW_PRIVATE_URLS="true",
       SERVICES__MESSAGING__WEBHOOKS__TIMEOUT_SECS=2,
       SERVICES__MESSAGING__WEBHOOKS__SWEEP_INTERVAL_SECS=1,
       CLUSTER__LEASE_SECS=LEASE_SECS, JOBS__POLL_INTERVAL_MS=250)
def webhook_deliveries_survive_a_node_kill(cluster):
    """A workspace's webhook (message.sent and message.delivered) gets 500 deliveries from
    250 SMS sent in bulk through node A; the node running the endpoint's actor is killed
    with SIGKILL midway. Every delivery arrives, each delivery id once (the one the dead node
    may have been posting when it died is the only one allowed twice: its outcome was never
    recorded), and each message's sent comes before its delivered."""
    a = cluster["a"]
    out = subprocess.run(a.command("admin", "create-workspace", "--name", "Cluster Co",
                                   "--credits", "1000"),
                         env=a.env, capture_output=True, text=True, check=True, timeout=60)
    key = out.stdout.strip().splitlines()[-1].split(": ", 1)[1]
    receiver = Receiver()
    try:
        headers = {"X-API-Key": key}
        hook = call("POST", a.url("messaging") + "/api/v1/webhooks", headers=headers,
                    json={"url": receiver.url, "events": ["message.sent", "message.delivered"]})
        assert hook.status_code == 201, f"webhook: {hook.status_code} {hook.text[:300]}"
        recipients = [{"to": f"+1415555{i:04d}"} for i in range(WEBHOOK_MESSAGES)]
        bulk = call("POST", a.url("messaging") + "/api/v1/messages/bulk", headers=headers,
                    json={"channel": "sms", "content": {"text": "Hi"}, "recipients": recipients})
        assert bulk.status_code == 201, f"bulk: {bulk.status_code} {bulk.text[:300]}"
        total = 2 * WEBHOOK_MESSAGES
        until = time.monotonic() + 60
        while time.monotonic() < until and len(receiver.seen()) < total // 4:
            time.sleep(0.05)
        owners = [n for n in cluster.nodes if endpoints_running(n)]
        assert len(owners) == 1, f"endpoint actors on {[n.id for n in owners]}, not on one node"
        owner = owners[0]
        before = len(receiver.seen())
        owner.kill()
        killed = time.monotonic()
        say(f"{owner.id} ran the endpoint and was killed after {before} of {total} deliveries")
        # A kill after the last delivery would prove nothing about surviving one.
        outstanding = total - len({c[0] for c in receiver.seen()})
        assert outstanding > 0, "every delivery had arrived before the kill: nothing to survive"
        until = killed + 120
        while time.monotonic() < until and len({c[0] for c in receiver.seen()}) < total:
            time.sleep(0.25)
        calls = receiver.seen()
        ids = [c[0] for c in calls]
        distinct = set(ids)
        say(f"{len(distinct)} distinct deliveries in {len(calls)} requests, all in "
            f"{time.monotonic() - killed:.1f}s after the kill")
        assert len(distinct) == total, f"{len(distinct)} of {total} deliveries arrived"
        repeated = [i for i in distinct if ids.count(i) > 1]
        assert len(repeated) <= 1 and len(calls) - total <= 1, \
            f"deliveries repeated: {[(i, ids.count(i)) for i in repeated]}"
        first = {}
        for _, event, message in calls:
            first.setdefault((message, event), len(first))
        late = [m for (m, e), at in first.items()
                if e == "message.delivered" and at < first.get((m, "message.sent"), -1)]
        assert not late, f"delivered before sent for {len(late)} messages: {late[:5]}"
        survivors = [n.id for n in cluster.nodes if n is not owner and endpoints_running(n)]
        say(f"taken over by {survivors}; repeated {len(repeated)} (the one in flight at the kill)")
    finally:
        receiver.close()


class NodePeer(Events):
    """tests/cluster/node/server.js: a Node socket.io server with @socket.io/redis-adapter on
    the cluster's Redis under `key`, whose probe client joins `room` and prints its events."""

    def __init__(self, cluster, key, room):
        import json as jsonlib
        import os
        import queue
        here = os.path.dirname(os.path.abspath(__file__))
        env = dict(os.environ, REDIS_URL=cluster.redis.url, KEY=key, ROOM=room, PORT="0")
        self.proc = subprocess.Popen(["node", os.path.join(here, "node", "server.js")], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        super().__init__()
        self.ready = queue.Queue()

        def read():
            for line in self.proc.stdout:
                try:
                    msg = jsonlib.loads(line)
                except ValueError:
                    continue
                if msg.get("ready"):
                    self.ready.put(msg)
                elif msg.get("probe") == "event":
                    self.events.put((msg["event"], msg["args"]))

        threading.Thread(target=read, daemon=True).start()
        try:
            self.port = self.ready.get(timeout=20)["port"]
        except queue.Empty:
            self.close()
            raise AssertionError("the Node socket.io server did not start (npm ci in tests/cluster/node)")

    def get(self, path, **params):
        return call("GET", f"http://127.0.0.1:{self.port}{path}", params=params)

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@check()
def a_node_socket_io_server_shares_rooms_with_the_cluster(cluster):
    """A Node socket.io server (the npm @socket.io/redis-adapter) joins the fleet under the
    marketplace's adapter key. A chat message sent through node A reaches the Node probe in
    the receiver's room; an emit from Node to that room reaches the receiver's socket on
    node B; Node's serverCount counts the three nodes and itself."""
    import json as jsonlib
    a, b = cluster["a"], cluster["b"]
    sender = MarketplaceUser(cluster, a, "Sender")
    receiver = MarketplaceUser(cluster, a, "Receiver")
    room = f"user:{receiver.id}"
    peer = NodePeer(cluster, "switchboard/marketplace", room)
    on_b = Socket(b, receiver.token, events=("new_message", "from_node"))
    try:
        count = peer.get("/server-count").json()
        say(f"Node's serverCount: {count}")
        sent = data(sender.send(a, receiver, "to Node"))
        heard = peer.next()
        say(f"a message sent through node-a reached the Node probe: {heard}")
        assert heard and heard[0] == "new_message" and heard[1][0]["messageId"] == sent["_id"], \
            f"the Node probe heard {heard}"
        mirrored = on_b.next(timeout=5)  # the same message, on node B's socket
        assert mirrored and mirrored[0] == "new_message" and \
            mirrored[1].get("messageId") == sent["_id"], f"node-b's socket heard {mirrored}"
        res = peer.get("/emit", room=room, event="from_node", args=jsonlib.dumps(["hello"]))
        assert res.ok, f"Node /emit: {res.status_code}"
        event = on_b.next()
        say(f"an emit from Node reached the socket on node-b: {event}")
        assert event == ("from_node", "hello"), f"node-b's socket heard {event}"
        assert count == 4, f"serverCount {count}, not the three nodes and Node"
    finally:
        on_b.close()
        peer.close()
