#!/usr/bin/env python3
"""A local Switchboard cluster: one fresh PostgreSQL database, one Redis (no persistence) and
N `switchboard serve` nodes (node-a, node-b, …), each binding every service on ports of its
own. Standard library only: scripts/cluster runs it with the system's python3, and the
harness (harness.py) imports it.

  cluster.py SWITCHBOARD_BIN [--nodes 3] [--port-base 18000] [--only marketplace,identity]

runs a cluster until Ctrl-C (scripts/cluster is the documented entry point)."""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

SERVICES = ("marketplace", "identity", "interview", "messaging", "advertising")
# The limits a test or local client from one address would run into at once; raised on every
# node unless the caller sets them (a check that measures one limit sets that one small).
GENEROUS_LIMITS = {
    "MARKETPLACE": ("GENERAL", "AUTH", "OTP_PER_SENDER", "OTP_PER_PHONE"),
    "IDENTITY": ("OTP_SEND_PER_SENDER", "OTP_SEND_PER_PHONE", "OTP_SEND_PER_IP",
                 "SIGNIN_PER_SENDER", "SIGNIN_PER_PHONE", "SIGNIN_PER_IP", "DEFAULT"),
    "MESSAGING": ("SEND", "DEFAULT", "TOKEN"),
}


def log(text):
    print(f"[cluster {time.strftime('%H:%M:%S')}] {text}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(probe, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} not ready after {timeout}s")


class Database:
    """A fresh database on the PostgreSQL server of an admin URL (scripts/postgres prints
    one), dropped again by close()."""

    def __init__(self, admin_url, prefix="cluster"):
        self.admin = admin_url
        self.name = f"{prefix}_{uuid.uuid4().hex[:10]}"
        self._psql(f'CREATE DATABASE "{self.name}"')
        self.url = admin_url.rsplit("/", 1)[0] + "/" + self.name

    def _psql(self, sql):
        # psql is on PATH (scripts/cluster and run.sh add PostgreSQL's bin directory).
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", self.admin, "-c", sql],
                       check=True, stdout=subprocess.DEVNULL, timeout=60)

    def close(self):
        self._psql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


class Redis:
    """redis-server on a port of its own, nothing saved."""

    def __init__(self, work, port=None):
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/"
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", work],
            stdout=open(os.path.join(work, "redis.log"), "ab"), stderr=subprocess.STDOUT)

        def up():
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return True
            except OSError:
                return False
        wait_for(up, 10, "redis-server")

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


class Node:
    """One `switchboard serve` process: every service on a port of its own."""

    def __init__(self, binary, node_id, ports, db_url, redis_url, work, settings, only):
        self.binary, self.id, self.ports, self.only = binary, node_id, ports, only
        self.work = work
        self.outbox = os.path.join(work, f"{node_id}.outbox.jsonl")
        self.log_path = os.path.join(work, f"{node_id}.log")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWITCHBOARD__")}
        config = {
            # A proxy in front on this machine (docs/scaling.md) is believed; trusting one
            # counts as exposed, which refuses development secrets unless this says so.
            "SERVER__ENVIRONMENT": "development",
            "SERVER__TRUSTED_PROXIES": '["127.0.0.1"]',
            "DATABASE__URL": db_url,
            "DATABASE__MAX_CONNECTIONS": "8",
            "OUTBOX__PATH": self.outbox,
            "PROVIDERS__STORAGE__PATH": os.path.join(work, "media"),
            "CLUSTER__REDIS_URL": redis_url,
            "CLUSTER__NODE_ID": node_id,
        }
        for service in SERVICES:
            key = f"SERVICES__{service.upper()}"
            if service in ports:
                config[f"{key}__BIND"] = f"127.0.0.1:{ports[service]}"
                config[f"{key}__PUBLIC_URL"] = self.url(service)
            else:
                config[f"{key}__ENABLED"] = "false"
        for service, limits in GENEROUS_LIMITS.items():
            for limit in limits:
                config[f"SERVICES__{service}__RATE_LIMITS__{limit}__LIMIT"] = "1000000"
        config.update(settings)
        env.update({f"SWITCHBOARD__{k}": str(v) for k, v in config.items()})
        env.setdefault("RUST_LOG", "warn")
        self.env = env
        self.proc = None

    def url(self, service):
        return f"http://127.0.0.1:{self.ports[service]}"

    def command(self, *args):
        # A configuration file that does not exist: built-in defaults, then the environment.
        return [self.binary, "--config", os.path.join(self.work, "none.toml"), *args]

    def migrate(self):
        subprocess.run(self.command("migrate"), env=self.env, check=True, timeout=300,
                       stdout=subprocess.DEVNULL)

    def start(self):
        with open(self.log_path, "ab") as out:
            out.write(f"\n=== start {time.strftime('%H:%M:%S')}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(self.command("serve", "--only", ",".join(self.ports)),
                                         env=self.env, stdout=out, stderr=subprocess.STDOUT)

    def healthy(self):
        if self.proc.poll() is not None:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                tail = f.read()[-3000:]
            raise RuntimeError(f"{self.id} exited with {self.proc.returncode}:\n{tail}")
        try:
            for service in self.ports:
                with urllib.request.urlopen(self.url(service) + "/health", timeout=2) as res:
                    if res.status != 200:
                        return False
            return True
        except OSError:
            return False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        """SIGKILL: no drain, no shutdown hook."""
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def codes(self):
        """Every message this node's outbox sandbox holds (SMS codes among them)."""
        try:
            with open(self.outbox, encoding="utf-8") as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []


class Cluster:
    """PostgreSQL database + Redis + nodes; a context manager that stops all of it.

    settings: SWITCHBOARD__ keys without the prefix (e.g. "JOBS__LEASE_SECS": 3), the same
    on every node. port_base: node i's service j listens on port_base + 10*(i+1) + j + 1
    (fixed ports for a proxy in front); absent: free ports."""

    def __init__(self, binary, pg_admin_url, nodes=3, settings=None, only=SERVICES,
                 port_base=None, work=None, keep_database=False):
        self.work = work or tempfile.mkdtemp(prefix="switchboard-cluster-")
        os.makedirs(self.work, exist_ok=True)
        self.keep_database = keep_database
        self.binary, self.settings, self.only, self.port_base = binary, settings or {}, only, port_base
        self.db = self.redis = None
        self.nodes = []
        try:
            self.db = Database(pg_admin_url)
            self.redis = Redis(self.work, port_base and port_base + 9)
            self.nodes = [self._node(i) for i in range(nodes)]
            self._start()
        except BaseException:
            self.close()
            raise

    def _node(self, i):
        base = self.port_base
        ports = {s: (base + 10 * (i + 1) + j + 1 if base else free_port())
                 for j, s in enumerate(SERVICES) if s in self.only}
        return Node(self.binary, f"node-{chr(ord('a') + i)}", ports, self.db.url,
                    self.redis.url, self.work, self.settings, self.only)

    def _start(self):
        # Migrations and the start-up bootstrap (the first advertising admin) once, on the
        # first node, before the others start side by side.
        self.nodes[0].migrate()
        self._bring_up([0])
        self._bring_up(range(1, len(self.nodes)))

    def _bring_up(self, indexes):
        for i in indexes:
            self.nodes[i].start()
        for i in indexes:
            for attempt in range(3):
                try:
                    wait_for(self.nodes[i].healthy, 120, self.nodes[i].id)
                    break
                except RuntimeError as e:
                    # A port found free, then taken by another process before the node bound
                    # it: the node again on other free ports.
                    if self.port_base or "Address already in use" not in str(e) or attempt == 2:
                        raise
                    self.nodes[i] = self._node(i)
                    self.nodes[i].start()

    def __getitem__(self, name):
        """cluster["a"] or cluster[0]: a node."""
        if isinstance(name, int):
            return self.nodes[name]
        return next(n for n in self.nodes if n.id in (name, f"node-{name}"))

    def panics(self):
        """Each node's `panicked at` lines, with the line after (the message)."""
        found = []
        for node in self.nodes:
            with open(node.log_path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
            found += [f"{node.id}: {line} {lines[i + 1] if i + 1 < len(lines) else ''}"
                      for i, line in enumerate(lines) if "panicked at" in line]
        return found

    def outbox(self):
        return [m for node in self.nodes for m in node.codes()]

    def close(self):
        for node in self.nodes:
            node.stop()
        if self.redis:
            self.redis.close()
        if self.db and not self.keep_database:
            self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def describe(self):
        lines = [f"PostgreSQL  {self.db.url}", f"Redis       {self.redis.url}"]
        for node in self.nodes:
            lines.append(f"{node.id}  (pid {node.proc.pid}, log {node.log_path})")
            lines += [f"  {s:<12} {node.url(s)}" for s in node.ports]
        lines.append(f"SMS/email outboxes: {self.work}/node-*.outbox.jsonl")
        return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary")
    p.add_argument("--postgres", required=True, help="admin URL (scripts/postgres prints one)")
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--port-base", type=int, default=18000)
    p.add_argument("--only", default=",".join(SERVICES))
    p.add_argument("--keep-database", action="store_true")
    a = p.parse_args()
    only = tuple(s for s in a.only.split(",") if s)
    log(f"starting PostgreSQL database, Redis and {a.nodes} nodes of {a.binary}")
    cluster = Cluster(os.path.realpath(a.binary), a.postgres, a.nodes, only=only,
                      port_base=a.port_base, keep_database=a.keep_database)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        print(cluster.describe(), flush=True)
        log("running; Ctrl-C stops everything")
        while True:
            for node in cluster.nodes:
                if not node.alive():
                    log(f"{node.id} exited with {node.proc.returncode} (see {node.log_path})")
                    return 1
            time.sleep(1)
    except KeyboardInterrupt:
        return 0
    finally:
        log("stopping")
        cluster.close()


if __name__ == "__main__":
    sys.exit(main())
