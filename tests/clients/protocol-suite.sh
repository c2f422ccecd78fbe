#!/usr/bin/env bash
# Runs the Socket.IO protocol's own test suite (the `test-suite/` folder of the
# socketio/socket.io-protocol repository, which no package registry carries, so it
# is not fetched here) against the socketio_echo example:
#
#   tests/clients/protocol-suite.sh PATH/TO/socket.io-protocol/test-suite
#
# Installs the suite's npm dependencies when missing or changed (npm ci, from its
# own lock file). The suite talks to http://localhost:3000, so that port must be
# free. SOCKETIO_ECHO_BIN names a prebuilt server; otherwise the example is built
# (debug) into $CARGO_TARGET_DIR (default: the repository's target/). tests/clients/run.sh
# calls this when SOCKETIO_PROTOCOL_SUITE names the folder. Expected: 33 passing.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 SUITE_DIR (socket.io-protocol's test-suite/)" >&2; exit 2; }
suite="$(realpath "$1")"
[ -f "$suite/test-suite.js" ] || { echo "$suite has no test-suite.js" >&2; exit 2; }
# shellcheck source=echo-bin.sh
. "$(dirname "${BASH_SOURCE[0]}")/echo-bin.sh"
if [ ! -f "$suite/node_modules/.package-lock.json" ] ||
    [ "$suite/package-lock.json" -nt "$suite/node_modules/.package-lock.json" ]; then
    (cd "$suite" && npm ci --no-audit --no-fund --silent)
fi
if curl -s -o /dev/null "http://localhost:3000/"; then
    echo "port 3000 is taken; the suite needs it" >&2
    exit 1
fi

PORT=3000 RUST_LOG=warn "$SOCKETIO_ECHO_BIN" >/dev/null &
echo_pid=$!
trap 'kill $echo_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    curl -fs -o /dev/null "http://localhost:3000/socket.io/?EIO=4&transport=polling" && break
    sleep 0.1
done
echo "== socket.io-protocol test suite =="
cd "$suite" && npx mocha test-suite.js
