#!/usr/bin/env python3
"""SIGKILL chaos: drives bulk and single sends with a webhook subscribed and live interviews,
kills the release binary at points drawn from a fixed seed, restarts it on the same database
and outbox, and checks that nothing accepted was lost or doubled (see checks.py).

  chaos.py SWITCHBOARD_BIN DB_URL [--seeds 11,23,37]

DB_URL is `sqlite` (a fresh file per run) or a PostgreSQL admin URL (a fresh database per
run). The seeds' runs go side by side; each prints its report, and the exit status is
non-zero when any check of any run failed."""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import requests

import checks
from load import Candidate, Messaging, create_session, join, start_session
from receiver import Receiver
from server import API_KEY, Database, Server

START_CREDITS = 10000
RUN_BUDGET = 150          # seconds one run may take before it is abandoned as failed
SETTLE = 15               # seconds after the last restart for messaging to go quiet


def log(tag, text):
    print(f"[{tag} {time.strftime('%H:%M:%S')}] {text}", flush=True)


def unfinished(server, api_key):
    """Outbound messages queued or sent (not yet delivered or failed)."""
    pending = 0
    for status in ("queued", "sent"):
        r = requests.get(f"{server.messaging}/api/v1/messages", timeout=10,
                         params={"status": status, "limit": 1},
                         headers={"X-API-Key": api_key})
        pending += r.json()["data"]["pagination"]["total"]
    return pending


def running(server, sessions):
    """How many of `sessions` are in progress."""
    return sum(requests.get(f"{server.interview}/api/v1/sessions/{s['id']}", timeout=10,
                            headers={"X-API-Key": API_KEY}).json()["status"] == "in_progress"
               for s in sessions)


def wait_quiet(server, api_key, until):
    """Polls until no outbound message is queued or sent (or `until`)."""
    while time.monotonic() < until:
        pending = unfinished(server, api_key)
        if pending == 0:
            return 0
        time.sleep(0.5)
    return pending


def sleep_until(t):
    time.sleep(max(0.0, t - time.monotonic()))


def run(binary, db_url, seed):
    rng = random.Random(seed)
    tag = f"s{seed}"
    work = tempfile.mkdtemp(prefix=f"chaos-{tag}-")
    db = Database(db_url, work, tag)
    server = Server(binary, db.url, work)
    receiver = Receiver()
    try:
        return _scenario(server, receiver, rng, tag)
    finally:
        server.stop()
        receiver.close()
        db.drop()
        if os.environ.get("CHAOS_KEEP"):
            log(tag, f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def _scenario(server, receiver, rng, tag):
    server.start()
    api_key = server.admin("create-workspace", "--name", f"chaos {tag}",
                           "--credits", str(START_CREDITS))["api_key"]
    r = requests.post(f"{server.messaging}/api/v1/webhooks", timeout=10,
                      headers={"X-API-Key": api_key},
                      json={"url": f"{receiver.url}/messaging",
                            "events": ["message.delivered", "message.failed"]})
    if not r.ok:
        raise RuntimeError(f"webhook refused: {r.status_code} {r.text}")

    t0 = time.monotonic()
    budget = t0 + RUN_BUDGET
    # Timed sessions (A) run from now; their deadline passes while the server is down.
    timed_a = [create_session(server, receiver.url, f"timed-{i}", tag) for i in range(3)]
    # Sessions completed on request during the load: their webhooks are in flight at a kill.
    asked = [create_session(server, receiver.url, f"asked-{i}", tag) for i in range(2)]
    for s in timed_a + asked:
        start_session(server, s)
    started_a = time.monotonic()

    load = Messaging(server, api_key, tag, budget)
    load.start()
    # Answers every 0.4 s over the first kill's window.
    around_kill1 = [t0 + 0.4 * k for k in range(7)]
    candidates = [Candidate(server, s, around_kill1, False, budget) for s in timed_a]
    candidates += [Candidate(server, s, around_kill1[:4], True, budget) for s in asked]
    for c in candidates:
        c.start()

    kill1 = rng.uniform(0.3, 2.0)
    sleep_until(t0 + kill1)
    # What the kill meets, read just before it: a seed whose kill met nothing tested nothing.
    in_flight1 = unfinished(server, api_key)
    killed1 = time.monotonic()
    server.kill()
    log(tag, f"SIGKILL 1 at {kill1:.2f}s into the load ({in_flight1} messages unfinished)")
    server.start()
    restarted1 = time.monotonic()
    load.join()
    load_end = time.monotonic()
    log(tag, f"load answered: {len(load.bulks)} bulks, {len(load.singles)} singles, "
             f"{load.resent} requests resent")
    kills = [("kill 1", {"messages queued or sent": in_flight1,
                         "requests resent": load.resent})]

    # Timed sessions (B) started after the first restart: their deadline passes after the
    # second restart, with the timer restored from the database.
    deadline_a = started_a + 60
    kill2 = deadline_a - rng.uniform(0.5, 2.0)
    sleep_until(t0 + 8)
    timed_b = [create_session(server, receiver.url, f"late-{i}", tag) for i in range(2)]
    for s in timed_b:
        start_session(server, s)
    # A few answers now, then some over the second kill and its restart.
    now = time.monotonic()
    schedule = [now + 0.5 * k for k in range(3)] + [kill2 - 1.5 + 0.5 * k for k in range(6)]
    late = [Candidate(server, s, schedule, False, budget) for s in timed_b]
    for c in late:
        c.start()
    candidates += late

    # The second kill just before the A deadlines; down until they have passed.
    sleep_until(kill2 - 0.3)
    timers2 = running(server, timed_a)
    sleep_until(kill2)
    server.kill()
    kills.append(("kill 2", {"timed sessions running": timers2}))
    log(tag, f"SIGKILL 2 at {kill2 - t0:.2f}s, {deadline_a - kill2:.2f}s before the first deadlines")
    sleep_until(deadline_a + 2.5)
    server.start()
    for c in candidates:
        c.thread.join(max(0.0, budget - time.monotonic()))

    sleep_until(now + 60 + 2)   # the B deadlines and a tick
    pending = wait_quiet(server, api_key, min(budget, time.monotonic() + SETTLE))
    # Webhooks trail the last status change; give the receiver a moment to catch up.
    time.sleep(3)
    log(tag, f"settled ({pending} messages still queued or sent)")

    def rejoin(token):
        sio, joined = join(server, token)
        sio.disconnect()
        return joined

    results = checks.hit(kills)
    results += checks.messaging(server, api_key, load, receiver, START_CREDITS)
    results.append(checks.resumed_promptly(receiver, load, killed1, restarted1, load_end))
    results += checks.interview(server, candidates, timed_a + timed_b, rejoin, receiver)
    errors = [e for c in candidates for e in c.errors]
    results.append(("candidates' commands were answered", not errors,
                    f"{len(errors)} refusals" + (f": {errors[:2]}" if errors else "")))
    return results


def one(binary, db_url, seed):
    tag = f"s{seed}"
    try:
        results = run(binary, db_url, seed)
    except Exception:
        log(tag, "run aborted:\n" + traceback.format_exc())
        return 1
    for name, passed, detail in results:
        print(f"[{tag}] {'PASS' if passed else 'FAIL'}  {name}: {detail}", flush=True)
    return 0 if all(p for _, p, _ in results) else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("db_url")
    ap.add_argument("--seeds", default=os.environ.get("CHAOS_SEEDS", "11,23,37"))
    ap.add_argument("--one", action="store_true", help="run the single seed given, here")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    if args.one:
        sys.exit(one(args.binary, args.db_url, seeds[0]))
    # Seeds side by side, each in its own process with its own ports and database; reports
    # are printed whole, one seed after the other.
    procs = []
    for seed in seeds:
        out = tempfile.TemporaryFile(mode="w+")
        p = subprocess.Popen([sys.executable, __file__, args.binary, args.db_url,
                              "--seeds", str(seed), "--one"], stdout=out, stderr=subprocess.STDOUT)
        procs.append((seed, p, out))
    failed = 0
    for seed, p, out in procs:
        try:
            p.wait(timeout=RUN_BUDGET + 120)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        out.seek(0)
        sys.stdout.write(out.read())
        failed += p.returncode != 0
    kind = "sqlite" if args.db_url.startswith("sqlite") else "postgres"
    print(f"chaos runs on {kind}, seeds {args.seeds}:")
    print(f"chaos: {len(seeds) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
