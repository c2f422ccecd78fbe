"""The release binary under test: free ports, a fresh database per run, start, SIGKILL, restart."""
import os
import signal
import socket
import subprocess
import time
import uuid

import requests

API_KEY = "chaos-interview-key"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Database:
    """A fresh SQLite file, or a fresh PostgreSQL database on the admin URL's server."""

    def __init__(self, url, work, name):
        self.admin = url
        if url.startswith("sqlite"):
            self.url = f"sqlite://{work}/switchboard.db?mode=rwc"
            self.pg_name = None
        else:
            self.pg_name = f"chaos_{name}_{uuid.uuid4().hex[:8]}"
            self._psql(f'CREATE DATABASE "{self.pg_name}"')
            self.url = url.rsplit("/", 1)[0] + "/" + self.pg_name

    def _psql(self, sql):
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", self.admin, "-c", sql],
                       check=True, stdout=subprocess.DEVNULL, timeout=60)

    def drop(self):
        if self.pg_name:
            self._psql(f'DROP DATABASE IF EXISTS "{self.pg_name}" WITH (FORCE)')


class Server:
    def __init__(self, binary, db_url, work):
        self.binary = binary
        self.work = work
        self.iv_port, self.msg_port = free_port(), free_port()
        self.interview = f"http://127.0.0.1:{self.iv_port}"
        self.messaging = f"http://127.0.0.1:{self.msg_port}"
        self.outbox = os.path.join(work, "outbox.jsonl")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWITCHBOARD__")}
        settings = {
            "DATABASE__URL": db_url,
            "DATABASE__MAX_CONNECTIONS": "8",
            "OUTBOX__PATH": self.outbox,
            "SERVICES__INTERVIEW__BIND": f"127.0.0.1:{self.iv_port}",
            "SERVICES__INTERVIEW__PUBLIC_URL": self.interview,
            "SERVICES__INTERVIEW__API_KEY": API_KEY,
            "SERVICES__INTERVIEW__WEBHOOK__ALLOW_PRIVATE_URLS": "true",
            "SERVICES__INTERVIEW__WEBHOOK__BASE_DELAY_SECS": "1",
            "SERVICES__MESSAGING__BIND": f"127.0.0.1:{self.msg_port}",
            "SERVICES__MESSAGING__PUBLIC_URL": self.messaging,
            "SERVICES__MESSAGING__WEBHOOKS__ALLOW_PRIVATE_URLS": "true",
            "SERVICES__MESSAGING__WEBHOOKS__BASE_DELAY_SECS": "1",
            # The node id lives here across restarts: the restarted process is the same node
            # and takes its own job and message claims back at once, with the default
            # leases (a minute for jobs, two for messages in a provider call).
            "SERVER__DATA_DIR": os.path.join(work, "data"),
            "JOBS__BACKOFF_BASE_SECS": "1",
            "JOBS__POLL_INTERVAL_MS": "250",
        }
        # The harness is one client address and one workspace sending far above the limits.
        for limit in ("INTERVIEW__RATE_LIMITS__ANSWER", "INTERVIEW__RATE_LIMITS__DEFAULT",
                      "MESSAGING__RATE_LIMITS__DEFAULT", "MESSAGING__RATE_LIMITS__SEND",
                      "MESSAGING__RATE_LIMITS__BULK"):
            settings[f"SERVICES__{limit}__LIMIT"] = "100000"
            settings[f"SERVICES__{limit}__WINDOW_SECS"] = "1"
        env.update({f"SWITCHBOARD__{k}": v for k, v in settings.items()})
        env["RUST_LOG"] = "warn"
        self.env = env
        self.proc = None
        self.log = open(os.path.join(work, "server.log"), "ab")
        self.starts = 0

    def _cmd(self, *args):
        return [self.binary, "--config", os.path.join(self.work, "none.toml"), *args]

    def admin(self, *args):
        out = subprocess.run(self._cmd("admin", *args), env=self.env, check=True,
                             capture_output=True, text=True, timeout=60).stdout
        return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)

    def start(self, timeout=60):
        self.starts += 1
        self.log.write(f"\n=== start {self.starts}\n".encode())
        self.log.flush()
        self.proc = subprocess.Popen(self._cmd("serve", "--only", "interview,messaging"),
                                     env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                with open(os.path.join(self.work, "server.log"), encoding="utf-8",
                          errors="replace") as f:
                    tail = f.read()[-2000:]
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{tail}")
            if self.healthy():
                return
            time.sleep(0.1)
        raise RuntimeError(f"server not healthy after {timeout}s")

    def healthy(self):
        try:
            return all(requests.get(f"{u}/health", timeout=1).ok
                       for u in (self.interview, self.messaging))
        except requests.RequestException:
            return False

    def kill(self):
        """SIGKILL: no drain, no shutdown hook."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()
