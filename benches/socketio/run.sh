#!/usr/bin/env bash
# Side-by-side Socket.IO benchmark: examples/socketio_echo (release) and the Node
# reference (socket.io 4.8) under the same load, one after the other on this machine.
#   benches/socketio/run.sh            # 10,000 idle sockets; 50 clients x 4 in flight echo
# Results go to stdout as JSON lines (copied into docs/benchmarks.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
IDLE=${IDLE:-10000}; CLIENTS=${CLIENTS:-50}; INFLIGHT=${INFLIGHT:-4}; TRIPS=${TRIPS:-100000}
ulimit -n "$(ulimit -Hn)"  # 10,000 sockets need more than the default 1,024 descriptors
[ -d "$here/node_modules" ] || (cd "$here" && npm ci --no-audit --no-fund --silent)
(cd "$repo" && cargo build --release --quiet --example socketio_echo)
RUST_BIN="$(cd "$repo" && realpath -m "${CARGO_TARGET_DIR:-target}")/release/examples/socketio_echo"

bench() { # name, command...
  local name=$1; shift
  "$@" >/dev/null 2>&1 &
  local pid=$!
  sleep 1.5
  echo "== $name (pid $pid)"
  timeout 300 node "$here/load.mjs" idle "http://127.0.0.1:$PORT" "$pid" "$IDLE"
  timeout 300 node "$here/load.mjs" echo "http://127.0.0.1:$PORT" "$pid" "$CLIENTS" "$INFLIGHT" "$TRIPS"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
# Every benchmark socket comes from 127.0.0.1: lift the per-address cap (default 1,000) above them.
PORT=3000 bench "rust socketio_echo" env PORT=3000 MAX_CONNECTIONS_PER_IP=$((IDLE + CLIENTS + 100)) "$RUST_BIN"
PORT=3001 bench "node socket.io 4.8" env PORT=3001 node "$here/node-echo-server.mjs"
