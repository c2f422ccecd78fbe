"""What must hold after the crashes, read through the public API, the built-in provider's
outbox and the webhook receiver's log. Each check returns (name, passed, detail)."""
import json
from collections import Counter, defaultdict
from datetime import datetime, timedelta

import requests

from server import API_KEY

FINAL = ("delivered", "failed")
DEADLINE_SLACK = timedelta(seconds=1.5)   # the timer ticks every 500 ms


def cents(value):
    return round(float(value) * 100)


def all_messages(server, api_key):
    out, page = {}, 1
    while True:
        r = requests.get(f"{server.messaging}/api/v1/messages", timeout=30,
                         params={"page": page, "limit": 100}, headers={"X-API-Key": api_key})
        r.raise_for_status()
        data = r.json()["data"]
        out.update({m["message_id"]: m for m in data["messages"]})
        if page >= data["pagination"]["total_pages"]:
            return out
        page += 1


def all_ledger(server, api_key):
    """Every entry of the workspace's credit ledger (GET /api/v1/account/ledger)."""
    out, page = [], 1
    while True:
        r = requests.get(f"{server.messaging}/api/v1/account/ledger", timeout=30,
                         params={"page": page, "limit": 500}, headers={"X-API-Key": api_key})
        r.raise_for_status()
        data = r.json()["data"]
        out.extend(data["entries"])
        if page >= data["pagination"]["total_pages"]:
            return out
        page += 1


def outbox_counts(path):
    """Lines of the messaging service per message: by message_id when a line carries it,
    else by recipient and text (every text of a run is unique)."""
    counts = Counter()
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                entry = json.loads(line)
                if entry.get("service") != "messaging":
                    continue
                counts[entry.get("message_id") or (entry["to"], entry["text"])] += 1
    except FileNotFoundError:
        pass
    return counts


def sample(items, n=3):
    items = sorted(map(str, items))
    return ", ".join(items[:n]) + (" …" if len(items) > n else "")


def messaging(server, api_key, load, receiver, start_credits):
    results = []
    listed = all_messages(server, api_key)
    accepted = load.accepted_ids()
    missing = accepted - listed.keys()
    outbound = {i: m for i, m in listed.items() if m["direction"] == "outbound"}
    stuck = {i for i, m in outbound.items() if m["status"] not in FINAL}
    by_status = Counter(m["status"] for m in outbound.values())
    results.append(("accepted messages reach a final state",
                    not missing and not stuck and not load.refused
                    and len(accepted) == load.expected(),
                    f"{len(accepted)} accepted, {len(outbound)} listed {dict(by_status)}; "
                    f"missing {len(missing)}, not final {len(stuck)}"
                    + (f" ({sample(stuck)})" if stuck else "")
                    + (f"; refused requests {load.refused[:2]}" if load.refused else "")))

    counts = outbox_counts(server.outbox)
    keyed_by_id = any(isinstance(k, str) for k in counts)
    zero, twice = [], []
    for i, m in outbound.items():
        n = counts.get(i, 0) if keyed_by_id else counts.get((m["to"], m["text"]), 0)
        if m["status"] != "failed" and n == 0:
            zero.append(i)
        if n > 1:
            twice.append(i)
    results.append(("built-in provider received each message once",
                    not zero and not twice,
                    f"{sum(counts.values())} outbox lines for {len(outbound)} messages "
                    f"(counted by {'message_id' if keyed_by_id else 'recipient+text'}); "
                    f"never sent {len(zero)}, sent more than once {len(twice)}"
                    + (f" ({sample(twice)})" if twice else "")))

    ids = defaultdict(set)
    for d in receiver.snapshot():
        if d["path"] == "/messaging" and d["payload"]:
            ids[(d["event"], d["payload"]["data"].get("message_id"))].add(d["delivery_id"])
    no_hook, split = [], []
    for i, m in outbound.items():
        if m["status"] in FINAL:
            n = len(ids.get((f"message.{m['status']}", i), ()))
            if n == 0:
                no_hook.append(i)
            elif n > 1:
                split.append(i)
    results.append(("each message event arrived under one delivery id",
                    not no_hook and not split,
                    f"{sum(len(v) for v in ids.values())} delivery ids for {len(ids)} events; "
                    f"final messages without their webhook {len(no_hook)}, "
                    f"events under several ids {len(split)}"
                    + (f" ({sample(split)})" if split else "")))

    r = requests.get(f"{server.messaging}/api/v1/account", timeout=10,
                     headers={"X-API-Key": api_key})
    r.raise_for_status()
    balance = cents(r.json()["data"]["credits_balance"])
    charged = sum(cents(m["credits_used"]) for m in outbound.values() if m["status"] != "failed")
    expected = start_credits * 100 - charged
    bad_debits = []
    for number, data in load.bulks:
        ms = [listed.get(i) for i in data["message_ids"]]
        if None in ms or cents(data["credits_used"]) != sum(cents(m["credits_used"]) for m in ms):
            bad_debits.append(f"bulk {number}")
    for body, data in load.singles:
        m = listed.get(data["message_id"])
        if m is None or cents(m["credits_used"]) != cents(data["credits_used"]):
            bad_debits.append(f"single to {body['to']}")
    results.append(("credits match charges",
                    balance == expected and not bad_debits,
                    f"balance {balance / 100:.2f}, expected {expected / 100:.2f} "
                    f"({start_credits} − charges of {len(outbound) - by_status['failed']} "
                    f"messages; failed ones refunded); debits without their messages "
                    f"{len(bad_debits)}" + (f" ({sample(bad_debits)})" if bad_debits else "")))

    # The ledger: its sum is the balance, every message has exactly one debit of its cost,
    # every failed message exactly one refund of it, and nothing else moves credits.
    entries = all_ledger(server, api_key)
    debits, refunds = defaultdict(list), defaultdict(list)
    strays = []
    for e in entries:
        if e["reason"] == "grant":
            continue
        if e["message_id"] not in outbound or e["reason"] not in ("message", "refund"):
            strays.append(e["id"])
            continue
        kind = debits if e["reason"] == "message" else refunds
        kind[e["message_id"]].append(cents(e["amount"]))
    wrong = [i for i, m in outbound.items()
             if debits.get(i) != [-cents(m["credits_used"])]
             or refunds.get(i, []) != ([cents(m["credits_used"])] if m["status"] == "failed" else [])]
    total = sum(cents(e["amount"]) for e in entries)
    results.append(("credits equal the ledger",
                    total == balance and not wrong and not strays,
                    f"{len(entries)} entries summing to {total / 100:.2f} against a balance of "
                    f"{balance / 100:.2f}; messages whose debit or refund is wrong {len(wrong)}"
                    + (f" ({sample(wrong)})" if wrong else "")
                    + f"; entries of no message {len(strays)}"))
    return results


def _get(server, path):
    r = requests.get(f"{server.interview}/api/v1{path}", headers={"X-API-Key": API_KEY},
                     timeout=10)
    r.raise_for_status()
    return r.json()


def _time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def interview(server, candidates, timed, rejoin, receiver):
    """`candidates`: every Candidate; `timed`: the sessions whose time limit must end them."""
    results = []
    lost, bad_rejoin = [], []
    for c in candidates:
        sid = c.session["id"]
        transcript = _get(server, f"/sessions/{sid}/messages?limit=200")["messages"]
        stored = {m["id"]: m["content"] for m in transcript}
        lost += [mid for mid, content in c.acked if stored.get(mid) != content]
        for acked_then, joined in c.rejoins:
            got = {m["id"] for m in joined.get("messages", [])}
            if any(mid not in got for mid, _ in acked_then):
                bad_rejoin.append(f"{sid} (reconnect)")
        joined = rejoin(c.session["session_token"])
        if [m["id"] for m in joined.get("messages", [])] != [m["id"] for m in transcript]:
            bad_rejoin.append(f"{sid} (final join)")
    acked = sum(len(c.acked) for c in candidates)
    results.append(("interview transcripts hold every acknowledged answer", not lost,
                    f"{acked} answers acknowledged over {len(candidates)} sessions; lost {len(lost)}"))
    results.append(("a rejoin gets session_joined with every message", not bad_rejoin,
                    f"{sum(len(c.rejoins) for c in candidates)} reconnects and "
                    f"{len(candidates)} final joins; incomplete: {sample(bad_rejoin) or 'none'}"))

    late = []
    for session in timed:
        s = _get(server, f"/sessions/{session['id']}")
        if s["status"] != "completed":
            late.append(f"{session['id']} still {s['status']}")
            continue
        reason = _get(server, f"/sessions/{session['id']}/report").get("completion_reason")
        deadline = _time(s["started_at"]) + timedelta(minutes=s["time_limit_minutes"])
        off = _time(s["completed_at"]) - deadline
        if reason != "time_limit" or abs(off) > DEADLINE_SLACK:
            late.append(f"{session['id']} {reason} {off.total_seconds():+.1f}s")
    results.append(("time limits end sessions at their stored deadline", not late,
                    f"{len(timed)} timed sessions (deadline passed while down or after the "
                    f"restart); off: {sample(late) or 'none'}"))

    ids = defaultdict(set)
    for d in receiver.snapshot():
        if d["path"] == "/interview" and d["payload"]:
            ids[d["payload"].get("session_id")].add(d["delivery_id"])
    completed = [c.session["id"] for c in candidates
                 if _get(server, f"/sessions/{c.session['id']}")["status"] == "completed"]
    bad = [f"{sid}: {len(ids.get(sid, ()))} ids" for sid in completed if len(ids.get(sid, ())) != 1]
    results.append(("each interview.completed arrived under one delivery id", not bad,
                    f"{len(completed)} completed sessions; {sample(bad) or 'all once'}"))
    return results
