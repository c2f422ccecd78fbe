#!/usr/bin/env bash
# Load figures for the identity service on a release build (docs/benchmarks.md):
#   1. POST /auth/signin (argon2id verify per request)
#   2. GET /users/me (JWT check + two primary-key reads)
#   3. GET /users/me while sign-in load runs: hashing must not stall other requests.
# Needs wrk (apt-get install wrk). Limits are raised through the environment; the server
# runs on a scratch SQLite database (set DB_URL for PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-15s}
CONNS=${CONNS:-32}
cargo build --release --bin switchboard
BIN="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/switchboard"
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SWITCHBOARD__DATABASE__URL=${DB_URL:-"sqlite://$WORK/db.sqlite?mode=rwc"}
export SWITCHBOARD__OUTBOX__PATH="$WORK/outbox.jsonl"
export SWITCHBOARD__SERVICES__IDENTITY__BIND=127.0.0.1:18182
export RUST_LOG=error
for l in OTP_SEND_PER_SENDER OTP_SEND_PER_PHONE OTP_SEND_PER_IP SIGNIN_PER_SENDER SIGNIN_PER_PHONE SIGNIN_PER_IP HANDLE_CHECK DEFAULT; do
  export SWITCHBOARD__SERVICES__IDENTITY__RATE_LIMITS__${l}__LIMIT=100000000
  export SWITCHBOARD__SERVICES__IDENTITY__RATE_LIMITS__${l}__WINDOW_SECS=3600
done
"$BIN" serve --only identity &
PID=$!
BASE=http://127.0.0.1:18182
for _ in $(seq 1 100); do curl -fs $BASE/health >/dev/null 2>&1 && break; sleep 0.1; done
read -r PHONE TOKEN < <(python3 scripts/identity_signup.py $BASE "$WORK/outbox.jsonl" --with-phone)

cat > "$WORK/signin.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"phone":"$PHONE","pin":"2468"}'
LUA
echo "== POST /auth/signin ($CONNS connections, $DURATION)"
wrk -t2 -c"$CONNS" -d"$DURATION" --latency -s "$WORK/signin.lua" $BASE/auth/signin | grep -E "Requests/sec|50%|99%|Non-2xx|requests in"

echo "== GET /users/me ($CONNS connections, $DURATION)"
wrk -t2 -c"$CONNS" -d"$DURATION" --latency -H "Authorization: Bearer $TOKEN" $BASE/users/me | grep -E "Requests/sec|50%|99%|Non-2xx|requests in"

echo "== GET /users/me (8 connections) while sign-in runs ($CONNS connections)"
wrk -t1 -c"$CONNS" -d"$DURATION" -s "$WORK/signin.lua" $BASE/auth/signin > "$WORK/bg.txt" &
BG=$!
sleep 1
wrk -t1 -c8 -d"$DURATION" --latency -H "Authorization: Bearer $TOKEN" $BASE/users/me | grep -E "Requests/sec|50%|99%|Non-2xx|requests in"
wait $BG
echo "   (concurrent sign-in: $(grep Requests/sec "$WORK/bg.txt"))"
