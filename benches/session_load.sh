#!/usr/bin/env bash
# Authenticated reads against the ceiling, in one run (docs/benchmarks.md, "Session check"):
#   1. a bare actix-web handler answering a small JSON body (benches/bare_json.rs): the ceiling
#   2. identity GET /health (the services' middleware, no credential)
#   3. identity GET /users/me (token, live-session check, rate limiter)
#   4. marketplace GET /auth/me (the same, with the account's current role)
# wrk, one thread, CONNS connections (64), DURATION (8s) each, on a release build. Limits are
# raised through the environment so that they never refuse, but they still count. Scratch
# SQLite database (DB_URL for PostgreSQL). Needs wrk and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-8s}
CONNS=${CONNS:-64}
cargo build --release --bin switchboard --example bare_json
TARGET="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release"
WORK=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SWITCHBOARD__DATABASE__URL=${DB_URL:-"sqlite://$WORK/db.sqlite?mode=rwc"}
export SWITCHBOARD__OUTBOX__PATH="$WORK/outbox.jsonl"
export SWITCHBOARD__SERVICES__IDENTITY__BIND=127.0.0.1:18282
export SWITCHBOARD__SERVICES__MARKETPLACE__BIND=127.0.0.1:18281
export RUST_LOG=error
for l in OTP_SEND_PER_SENDER OTP_SEND_PER_PHONE OTP_SEND_PER_IP SIGNIN_PER_SENDER SIGNIN_PER_PHONE SIGNIN_PER_IP HANDLE_CHECK DEFAULT; do
  export SWITCHBOARD__SERVICES__IDENTITY__RATE_LIMITS__${l}__LIMIT=100000000
  export SWITCHBOARD__SERVICES__IDENTITY__RATE_LIMITS__${l}__WINDOW_SECS=60
done
for l in GENERAL AUTH OTP_PER_SENDER OTP_PER_PHONE; do
  export SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__${l}__LIMIT=100000000
  export SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__${l}__WINDOW_SECS=60
done
"$TARGET/examples/bare_json" 127.0.0.1:18299 &
BARE=$!
PIDS+=($BARE)
"$TARGET/switchboard" serve --only identity,marketplace &
SERVER=$!
PIDS+=($SERVER)
TICK=$(getconf CLK_TCK)
# User + system CPU time of a process, in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for base in http://127.0.0.1:18282 http://127.0.0.1:18281; do
  for _ in $(seq 1 100); do curl -fs $base/health >/dev/null 2>&1 && break; sleep 0.1; done
done
ID_TOKEN=$(python3 scripts/identity_signup.py http://127.0.0.1:18282 "$WORK/outbox.jsonl")
MP_TOKEN=$(curl -fs -X POST http://127.0.0.1:18281/auth/signup -H "Content-Type: application/json" \
  -d "{\"phone\":\"+49176$(printf %08d $((RANDOM * RANDOM % 100000000)))\",\"password\":\"bench-secret\"}" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["token"])')

# run NAME PID wrk-args…: throughput, latency and the server's CPU per request (a figure
# that holds even when other work shares the machine).
run() {
  local name=$1 pid=$2; shift 2
  local out before after
  before=$(ticks "$pid")
  out=$(wrk -t1 -c"$CONNS" -d"$DURATION" --latency "$@")
  after=$(ticks "$pid")
  local rps p50 p99 non2xx total cpu
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
  total=$(awk '/requests in/ {print $1}' <<<"$out")
  cpu=$(python3 -c "print(f'{($after - $before) / $TICK * 1e6 / $total:.1f}')")
  printf '| %-32s | %10s | %8s | %8s | %6s µs | %s\n' "$name" "$rps" "$p50" "$p99" "$cpu" "${non2xx:-0} non-2xx"
  echo "$rps" > "$WORK/$(tr -c 'a-z' '_' <<<"$name")"
}
echo "| request ($CONNS connections, $DURATION, wrk -t1) | requests/s | p50 | p99 | server CPU/request |"
run "bare actix-web JSON (ceiling)" "$BARE" http://127.0.0.1:18299/
CEILING=$(cat "$WORK/$(tr -c 'a-z' '_' <<<"bare actix-web JSON (ceiling)")")
run "identity GET /health" "$SERVER" http://127.0.0.1:18282/health
run "identity GET /users/me" "$SERVER" -H "Authorization: Bearer $ID_TOKEN" http://127.0.0.1:18282/users/me
run "marketplace GET /auth/me" "$SERVER" -H "Authorization: Bearer $MP_TOKEN" http://127.0.0.1:18281/auth/me
for name in "identity GET /users/me" "marketplace GET /auth/me"; do
  rps=$(cat "$WORK/$(tr -c 'a-z' '_' <<<"$name")")
  python3 -c "print(f'{\"$name\"}: {$rps / $CEILING:.2f} x the ceiling (goal >= 0.5)')"
done
