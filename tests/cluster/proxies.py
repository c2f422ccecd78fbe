"""The proxy configurations of docs/scaling.md, as written there, in front of a running
cluster: the nodes' ports (127.0.0.1:180NS, node N, service S) and the proxy's own
(127.0.0.1:808S) rewritten to the cluster's and to free ones."""
import os
import re
import socket
import subprocess
import time

from cluster import SERVICES, free_port, wait_for

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "scaling.md")
COMMANDS = {
    "nginx": lambda conf, work: ["nginx", "-c", conf, "-p", work, "-g",
                                 f"daemon off; pid {work}/nginx.pid; error_log {work}/error.log;"],
    "haproxy": lambda conf, work: ["haproxy", "-db", "-f", conf],
}


def documented(kind):
    """The ```nginx or ```haproxy block of docs/scaling.md."""
    with open(DOC, encoding="utf-8") as f:
        return re.search(rf"```{kind}\n(.*?)```", f.read(), re.S).group(1)


class Proxy:
    """One proxy process; url(service) is where it serves that service."""

    def __init__(self, kind, cluster):
        self.kind = kind
        self.ports = {s: free_port() for s in SERVICES}

        def backend(m):
            node, service = cluster.nodes[int(m[1]) - 1], SERVICES[int(m[2]) - 1]
            return f"127.0.0.1:{node.ports[service]}"
        conf = re.sub(r"127\.0\.0\.1:180(\d)(\d)\b", backend, documented(kind))
        conf = re.sub(r"127\.0\.0\.1:808(\d)\b",
                      lambda m: f"127.0.0.1:{self.ports[SERVICES[int(m[1]) - 1]]}", conf)
        path = os.path.join(cluster.work, f"{kind}.conf")
        with open(path, "w") as f:
            f.write(conf)
        self.log = open(os.path.join(cluster.work, f"{kind}.log"), "ab")
        self.proc = subprocess.Popen(COMMANDS[kind](path, cluster.work), stdout=self.log,
                                     stderr=subprocess.STDOUT)

        def listening():
            assert self.proc.poll() is None, f"{kind} exited with {self.proc.returncode}"
            try:
                socket.create_connection(("127.0.0.1", self.ports["marketplace"]), 0.5).close()
                return True
            except OSError:
                return False
        wait_for(listening, 10, kind)
        time.sleep(0.5)  # HAProxy's first health checks

    def url(self, service):
        return f"http://127.0.0.1:{self.ports[service]}"

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.log.close()
