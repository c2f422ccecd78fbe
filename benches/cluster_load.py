"""One node against two over the same PostgreSQL and Redis (docs/scaling.md), on a release
binary: marketplace GET /auth/me and POST /messages/send under wrk, for
  - one node counting its rate limits in memory (no [cluster] redis_url: the single process),
  - one node counting them in Redis,
  - two nodes on Redis, one wrk per node side by side (each half the connections),
with each process's CPU per request (node, Redis, PostgreSQL, wrk), Redis commands per request
and PostgreSQL transactions per request: the figures the 100-node plan scales.

  python cluster_load.py SWITCHBOARD_BIN PG_ADMIN_URL   (benches/cluster_load.sh runs it)
DURATION (8) seconds per row, CONNS (64) connections for the read, SEND_CONNS (32) for sends."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cluster"))
from clients import MarketplaceUser  # noqa: E402
from cluster import Cluster  # noqa: E402

DURATION = int(os.environ.get("DURATION", "8"))
CONNS = int(os.environ.get("CONNS", "64"))
SEND_CONNS = int(os.environ.get("SEND_CONNS", "32"))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_secs(pids):
    """User + system CPU seconds of the processes (those gone count nothing)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def postgres_pids():
    """The bench's own PostgreSQL server (PG_DATA): its postmaster and every child."""
    with open(os.path.join(os.environ["PG_DATA"], "postmaster.pid")) as f:
        master = int(f.readline())
    out = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout
    return [master, *map(int, out.split())]


def psql(admin, sql):
    return subprocess.run(["psql", "-qAt", admin, "-c", sql], capture_output=True, text=True,
                          check=True).stdout.strip()


def redis_calls(port):
    """Scripts run (one round trip each: a rate-limit hit) and commands in all."""
    out = subprocess.run(["redis-cli", "-p", str(port), "info", "commandstats"],
                         capture_output=True, text=True, check=True).stdout
    scripts = sum(int(n) for n in re.findall(r"cmdstat_eval\w*:calls=(\d+)", out))
    return scripts, sum(int(n) for n in re.findall(r"calls=(\d+)", out))


def wrk_script(work, token, body=None):
    path = os.path.join(work, f"wrk-{abs(hash((token, body)))}.lua")
    with open(path, "w") as f:
        f.write(f'wrk.headers["Authorization"] = "Bearer {token}"\n')
        if body:
            f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
            f.write(f"wrk.body = '{body}'\n")
    return path


def parse(out):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    total = int(re.search(r"(\d+) requests in", out).group(1))
    return rps, p99_ms, int(bad.group(1)) if bad else 0, total


def measure(cluster, nodes, path, script, conns):
    """wrk on each of `nodes` at once, conns split between them; the row's figures."""
    redis_port = int(cluster.redis.url.rsplit(":", 1)[1].strip("/"))
    node_pids = [n.proc.pid for n in cluster.nodes]
    pg = postgres_pids()
    db = cluster.db.name
    xacts = f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{db}'"
    before = (cpu_secs(node_pids), cpu_secs([cluster.redis.proc.pid]), cpu_secs(pg),
              redis_calls(redis_port), int(psql(cluster.db.admin, xacts)))
    spent = os.times()
    wrks = [subprocess.Popen(["wrk", "-t1", f"-c{conns // len(nodes)}", f"-d{DURATION}s",
                              "--latency", "-s", script, n.url("marketplace") + path],
                             stdout=subprocess.PIPE, text=True) for n in nodes]
    outs = [w.communicate()[0] for w in wrks]
    now = os.times()
    wrk_cpu = now.children_user + now.children_system - spent.children_user - spent.children_system
    after = (cpu_secs(node_pids), cpu_secs([cluster.redis.proc.pid]), cpu_secs(pg + postgres_pids()),
             redis_calls(redis_port), int(psql(cluster.db.admin, xacts)))
    rows = [parse(o) for o in outs]
    total = sum(r[3] for r in rows)
    rps = sum(r[0] for r in rows)
    per = lambda i: (after[i] - before[i]) / total * 1e6  # noqa: E731  µs (or count × 1e6)
    return {
        "rps": rps, "p99_ms": max(r[1] for r in rows), "non2xx": sum(r[2] for r in rows),
        "node_us": per(0), "redis_us": per(1), "pg_us": per(2),
        "redis_trips": (after[3][0] - before[3][0]) / total,
        "redis_cmds": (after[3][1] - before[3][1]) / total, "pg_xacts": (after[4] - before[4]) / total,
        "wrk_us": wrk_cpu / total * 1e6,
    }


def main():
    binary, admin = sys.argv[1], sys.argv[2]
    os.environ["RUST_LOG"] = "error"
    configs = [("1 node, limits in memory", 1, {"CLUSTER__REDIS_URL": ""}),
               ("1 node, limits in Redis", 1, {}),
               ("2 nodes, limits in Redis", 2, {})]
    print(f"wrk -t1 per node, {DURATION} s per row; GET {CONNS} connections in total, "
          f"sends {SEND_CONNS}; CPU per request in µs\n")
    print("| setup | request | requests/s | p99 | node CPU/req | Redis CPU/req | PostgreSQL CPU/req "
          "| wrk CPU/req | Redis scripts (commands)/req | PG commits/req | non-2xx |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for label, count, settings in configs:
        settings = {"DATABASE__MAX_CONNECTIONS": "16", **settings}
        with Cluster(binary, admin, count, settings, only=("marketplace",),
                     work=tempfile.mkdtemp(prefix="cluster-bench-")) as cluster:
            a = cluster.nodes[0]
            sender, receiver = MarketplaceUser(cluster, a, "Bench A"), MarketplaceUser(cluster, a, "Bench B")
            me = wrk_script(cluster.work, sender.token)
            send = wrk_script(cluster.work, sender.token,
                              f'{{"receiverId":"{receiver.id}","message":"bench"}}')
            for name, path, script, conns in (("GET /auth/me", "/auth/me", me, CONNS),
                                               ("POST /messages/send", "/messages/send", send, SEND_CONNS)):
                r = measure(cluster, cluster.nodes, path, script, conns)
                print(f"| {label} | {name} | {r['rps']:,.0f} | {r['p99_ms']:.1f} ms | "
                      f"{r['node_us']:.1f} | {r['redis_us']:.1f} | {r['pg_us']:.1f} | {r['wrk_us']:.1f} | "
                      f"{r['redis_trips']:.2f} ({r['redis_cmds']:.1f}) | {r['pg_xacts']:.2f} | {r['non2xx']} |", flush=True)
                time.sleep(1)


if __name__ == "__main__":
    main()
