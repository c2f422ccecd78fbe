#!/usr/bin/env python3
"""tests/cluster: starts PostgreSQL (a fresh database on the admin URL's server), Redis and
three nodes of the given binary for each check in checks.py, runs it through the public
API, and stops them.

  harness.py SWITCHBOARD_BIN PG_ADMIN_URL [--only name,name] [--list]

Prints a report per check; exits non-zero when any failed."""
import argparse
import os
import re
import shutil
import sys
import time
import traceback

from checks import CHECKS
from cluster import Cluster, log

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("postgres")
    p.add_argument("--only", default="", help="comma-separated check names")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    if a.list:
        for c in CHECKS:
            print(f"{c.name}: {' '.join(c.run.__doc__.split())}\n")
        return 0
    wanted = [c for c in CHECKS if not a.only or c.name in a.only.split(",")]
    results = []
    for c in wanted:
        log(f"{c.name}: starting a cluster")
        started = time.monotonic()
        work = None
        try:
            with Cluster(os.path.realpath(a.binary), a.postgres, 3, c.settings) as cluster:
                work = cluster.work
                log(f"{c.name}: running (logs in {cluster.work})")
                c.run(cluster)
            # Stopped (SIGTERM) by now: a node that panicked, running or shutting down, fails.
            panics = cluster.panics()
            assert not panics, "a node panicked:\n" + "\n".join(panics)
            # A failed check's logs stay for reading.
            shutil.rmtree(cluster.work, ignore_errors=True)
            results.append((c.name, None, time.monotonic() - started))
        except AssertionError as e:
            results.append((c.name, str(e), time.monotonic() - started))
        except Exception:
            results.append((c.name, traceback.format_exc(), time.monotonic() - started))
        log(f"{c.name}: {'passed' if results[-1][1] is None else 'FAILED'}")
        if results[-1][1] is not None and work:
            print_warnings(work)
    print("\n== tests/cluster")
    for name, failure, secs in results:
        print(f"{'ok  ' if failure is None else 'FAIL'} {name} ({secs:.0f}s)"
              + ("" if failure is None else f"\n       {failure}"))
    return 1 if any(f for _, f, _ in results) else 0


def print_warnings(work, most=20):
    """The last warnings and errors of each node of a failed check: CI keeps no files."""
    for name in sorted(os.listdir(work)):
        if not name.endswith(".log") or name == "redis.log":
            continue
        with open(os.path.join(work, name), encoding="utf-8", errors="replace") as f:
            lines = [ANSI.sub("", line.rstrip()) for line in f
                     if " WARN " in ANSI.sub("", line) or " ERROR " in ANSI.sub("", line)]
        print(f"    {name}: {len(lines)} warnings and errors" + (", the last:" if lines else ""))
        for line in lines[-most:]:
            print(f"      {line[:400]}")


if __name__ == "__main__":
    sys.exit(main())
