#!/usr/bin/env bash
# Marketplace direct messages under load, beside the bare Socket.IO echo (docs/benchmarks.md):
# the release server on a scratch SQLite database; PAIRS senders POST /messages/send at RATE
# messages/s for DURATION_S seconds while their receivers listen on Socket.IO; then examples/socketio_echo
# under the same pacing from the same raw-WebSocket clients. Prints one JSON line each.
#   RATE=1000 DURATION_S=10 PAIRS=50 benches/marketplace_relay.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
RATE=${RATE:-1000}; DURATION_S=${DURATION_S:-10}; PAIRS=${PAIRS:-50}
[ -d "$here/socketio/node_modules" ] || (cd "$here/socketio" && npm ci --no-audit --no-fund --silent)
(cd "$repo" && cargo build --release --quiet --bin switchboard --example socketio_echo)
TARGET="$(cd "$repo" && realpath -m "${CARGO_TARGET_DIR:-target}")/release"
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SWITCHBOARD__DATABASE__URL="sqlite://$WORK/db.sqlite?mode=rwc"
export SWITCHBOARD__OUTBOX__PATH="$WORK/outbox.jsonl"
export SWITCHBOARD__SERVICES__MARKETPLACE__BIND=127.0.0.1:18191
export RUST_LOG=error
for l in GENERAL AUTH OTP_PER_SENDER OTP_PER_PHONE; do
  export SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__${l}__LIMIT=100000000
  export SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__${l}__WINDOW_SECS=3600
done
"$TARGET/switchboard" serve --only marketplace &
PID=$!
for _ in $(seq 1 100); do curl -fs http://127.0.0.1:18191/health >/dev/null 2>&1 && break; sleep 0.1; done
MARKETPLACE_OUTBOX="$WORK/outbox.jsonl" node "$here/socketio/relay.mjs" relay http://127.0.0.1:18191 "$PID" "$PAIRS" "$RATE" "$DURATION_S"
kill "$PID"; wait "$PID" 2>/dev/null || true

PORT=3005 "$TARGET/examples/socketio_echo" >/dev/null 2>&1 &
PID=$!
sleep 1
node "$here/socketio/relay.mjs" echo http://127.0.0.1:3005 "$PID" "$PAIRS" "$RATE" "$DURATION_S"
