#!/usr/bin/env bash
# REST latency on the workers that carry Socket.IO load, with the coalescing pause on and off.
#   benches/socketio/rest_under_load.sh
# For each COALESCE_US (500, the shipped default, and 0: off) it starts examples/socketio_echo
# (release), measures GET /rest/ping alone, then again while 50 clients x 4 in flight echo over
# Socket.IO. Results are JSON lines (copied into docs/benchmarks.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}; CONNECTIONS=${CONNECTIONS:-4}; ROUNDS=${ROUNDS:-2}
[ -d "$here/node_modules" ] || (cd "$here" && npm ci --no-audit --no-fund --silent)
(cd "$repo" && cargo build --release --quiet --example socketio_echo)
BIN="$(cd "$repo" && realpath -m "${CARGO_TARGET_DIR:-target}")/release/examples/socketio_echo"
PORT=${PORT:-3100}
for round in $(seq 1 "$ROUNDS"); do
  for us in 500 0; do
    env PORT=$PORT COALESCE_US=$us MAX_CONNECTIONS_PER_IP=1000 "$BIN" >/dev/null 2>&1 &
    pid=$!
    sleep 1.5
    node "$here/load.mjs" rest "http://127.0.0.1:$PORT" "$pid" "$CONNECTIONS" "$SECONDS_PER_RUN" "coalesce_us=$us idle round=$round"
    # Enough round trips to outlast the probe; stopped when the probe ends.
    node "$here/load.mjs" echo "http://127.0.0.1:$PORT" "$pid" 50 4 100000000 >/dev/null &
    load=$!
    sleep 2
    node "$here/load.mjs" rest "http://127.0.0.1:$PORT" "$pid" "$CONNECTIONS" "$SECONDS_PER_RUN" "coalesce_us=$us echo_load round=$round"
    kill "$load" 2>/dev/null || true; wait "$load" 2>/dev/null || true
    kill "$pid"; wait "$pid" 2>/dev/null || true
  done
done
