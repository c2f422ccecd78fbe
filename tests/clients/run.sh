#!/usr/bin/env bash
# Runs the official Python and Node Socket.IO clients against the
# socketio_echo example. Installs their dependencies when missing or changed
# (a venv in python/.venv, node_modules from package-lock.json).
#
# SOCKETIO_ECHO_BIN names a prebuilt server; otherwise the example is built
# (debug) into $CARGO_TARGET_DIR (default: the repository's target/).
set -euo pipefail

# shellcheck source=echo-bin.sh
. "$(dirname "${BASH_SOURCE[0]}")/echo-bin.sh"

# Python: a private venv, reinstalled only when requirements.txt changes.
venv="$here/python/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/python/requirements.txt" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/python/requirements.txt"
    echo "$want" >"$stamp"
fi

# Node: npm ci only when the lock file is newer than the installed tree.
node_dir="$here/node"
if [ ! -f "$node_dir/node_modules/.package-lock.json" ] ||
    [ "$node_dir/package-lock.json" -nt "$node_dir/node_modules/.package-lock.json" ]; then
    (cd "$node_dir" && npm ci --no-audit --no-fund --silent)
fi

# The interview and marketplace services for the interview-session and marketplace
# tests (SWITCHBOARD_BIN names a prebuilt binary; otherwise it is built, debug).
if [ -z "${SWITCHBOARD_BIN:-}" ]; then
    (cd "$repo" && cargo build --quiet --bin switchboard)
    SWITCHBOARD_BIN="$CARGO_TARGET_DIR/debug/switchboard"
fi
work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export INTERVIEW_URL="http://127.0.0.1:$port"
mport="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export MARKETPLACE_URL="http://127.0.0.1:$mport"
export INTERVIEW_API_KEY="client-test-key"
# Where the marketplace's codes go: the tests verify their users' phones as a user would.
export MARKETPLACE_OUTBOX="$work/outbox.jsonl"
SWITCHBOARD__DATABASE__URL="sqlite://$work/db.sqlite?mode=rwc" \
SWITCHBOARD__OUTBOX__PATH="$MARKETPLACE_OUTBOX" \
SWITCHBOARD__SERVICES__INTERVIEW__BIND="127.0.0.1:$port" \
SWITCHBOARD__SERVICES__INTERVIEW__PUBLIC_URL="$INTERVIEW_URL" \
SWITCHBOARD__SERVICES__INTERVIEW__API_KEY="$INTERVIEW_API_KEY" \
SWITCHBOARD__SERVICES__MARKETPLACE__BIND="127.0.0.1:$mport" \
SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__AUTH__LIMIT=1000 \
SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__AUTH__WINDOW_SECS=900 \
RUST_LOG=warn "$SWITCHBOARD_BIN" --config "$work/none.toml" serve --only interview,marketplace &
iv_pid=$!
trap 'kill $iv_pid 2>/dev/null || true; wait $iv_pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
    curl -fs "$INTERVIEW_URL/health" >/dev/null 2>&1 &&
        curl -fs "$MARKETPLACE_URL/health" >/dev/null 2>&1 && break
    sleep 0.2
done

status=0
echo "== python-socketio =="
(cd "$here/python" && "$venv/bin/python" -m pytest -q -p no:cacheprovider) || status=1
echo "== socket.io-client (node) =="
(cd "$node_dir" && node --test) || status=1
# The protocol's own suite, where a checkout of it is at hand (no registry carries it).
if [ -n "${SOCKETIO_PROTOCOL_SUITE:-}" ]; then
    "$here/protocol-suite.sh" "$SOCKETIO_PROTOCOL_SUITE" || status=1
fi
exit "$status"
