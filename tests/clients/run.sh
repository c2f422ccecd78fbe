#!/usr/bin/env bash
# Runs the official Python and Node Socket.IO clients against the
# socketio_echo example. Installs their dependencies when missing or changed
# (a venv in python/.venv, node_modules from package-lock.json).
#
# SOCKETIO_ECHO_BIN names a prebuilt server; otherwise the example is built
# (debug) into $CARGO_TARGET_DIR (default: the repository's target/).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

if [ -z "${SOCKETIO_ECHO_BIN:-}" ]; then
    (cd "$repo" && cargo build --quiet --example socketio_echo)
    export SOCKETIO_ECHO_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/examples/socketio_echo"
fi

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

status=0
echo "== python-socketio =="
(cd "$here/python" && "$venv/bin/python" -m pytest -q -p no:cacheprovider) || status=1
echo "== socket.io-client (node) =="
(cd "$node_dir" && node --test) || status=1
exit "$status"
