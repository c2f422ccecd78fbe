#!/usr/bin/env bash
# Messaging load test on a release build: starts the service on a scratch SQLite database
# with raised limits, creates a workspace with the admin CLI, then measures single sends,
# 1000-recipient bulk requests and webhook deliveries to a local receiver.
# Usage: benches/messaging.sh   (numbers: see docs/benchmarks.md)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin switchboard --example messaging_load
T="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release"
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
# BENCH_DATABASE_URL=postgres://… measures on PostgreSQL (an empty database) instead.
export SWITCHBOARD__DATABASE__URL="${BENCH_DATABASE_URL:-sqlite://$WORK/db.sqlite?mode=rwc}"
export SWITCHBOARD__OUTBOX__PATH="$WORK/outbox.jsonl"
export SWITCHBOARD__SERVICES__MESSAGING__BIND=127.0.0.1:18184
export SWITCHBOARD__WEBHOOKS__ALLOW_PRIVATE_URLS=true   # the receiver is on loopback
export RUST_LOG=warn
for l in SEND BULK DEFAULT; do
  export SWITCHBOARD__SERVICES__MESSAGING__RATE_LIMITS__${l}__LIMIT=100000000
  export SWITCHBOARD__SERVICES__MESSAGING__RATE_LIMITS__${l}__WINDOW_SECS=60
done
BASE=http://127.0.0.1:18184
key() { "$T/switchboard" admin create-workspace --name "$1" --credits 100000000 | sed -n 's/^api_key: //p'; }
K1=$(key "Single"); K2=$(key "Bulk"); K3=$(key "Hooks")
"$T/switchboard" serve --only messaging &
PID=$!
until curl -fs $BASE/api-docs/openapi.json >/dev/null 2>&1; do sleep 0.2; done
"$T/examples/messaging_load" single "$BASE" "$K1" ${SINGLE_N:-5000} ${SINGLE_CONCURRENCY:-32}
sleep 3   # let the dispatcher drain
# SUPPRESSED=10000 puts that many numbers on the bulk workspace's suppression list first
# (10 of each bulk's 1,000 recipients among them): the check is one look-up per 500.
if [ "${SUPPRESSED:-0}" -gt 0 ]; then
  "$T/examples/messaging_load" suppress "$BASE" "$K2" "$SUPPRESSED" 32
fi
"$T/examples/messaging_load" bulk "$BASE" "$K2" ${BULK_REQUESTS:-20} 1000
sleep 10
"$T/examples/messaging_load" webhooks "$BASE" "$K3" ${WEBHOOKS:-4} ${WEBHOOK_MESSAGES:-2000}
