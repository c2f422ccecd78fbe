#!/usr/bin/env bash
# Browser end-to-end tests: starts the interview and advertising services (debug build unless
# SWITCHBOARD_BIN names one) and drives the candidate page and the sandbox checkout in headless Chromium
# (/usr/bin/chromium, installed by scripts/setup) with playwright-core.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# Absolute, so the test programs (run from their own directories) find the binaries.
CARGO_TARGET_DIR="$(cd "$repo" && realpath -m "${CARGO_TARGET_DIR:-target}")"
export CARGO_TARGET_DIR

if [ ! -f "$here/node_modules/.package-lock.json" ] ||
    [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
if [ -z "${SWITCHBOARD_BIN:-}" ]; then
    (cd "$repo" && cargo build --quiet --bin switchboard)
    SWITCHBOARD_BIN="$CARGO_TARGET_DIR/debug/switchboard"
fi
work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export INTERVIEW_URL="http://127.0.0.1:$port"
export INTERVIEW_API_KEY="e2e-test-key"
ad_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export ADVERTISING_URL="http://127.0.0.1:$ad_port"
# The advertising test reads the outbox (mailed links and codes).
export E2E_OUTBOX="$work/outbox.jsonl"
# The console test seeds its ad and its moderator with the binary's own commands, on the
# server's database and media directory.
export SWITCHBOARD_BIN
export E2E_DATABASE_URL="sqlite://$work/db.sqlite?mode=rwc"
export E2E_MEDIA="$work/media"
export E2E_CONFIG="$work/none.toml"
export E2E_ARTIFACTS="$here/artifacts"
mkdir -p "$E2E_ARTIFACTS"
# The console's queue is six screenshots of one ad's video without a code (each waits for a
# person); the duplicate check would take frames of one clip for one picture.
SWITCHBOARD__PROVIDERS__SCREENSHOTS__DETAIL_MIN_SIMILARITY=2 \
SWITCHBOARD__PROVIDERS__SCREENSHOTS__PICTURE_MIN_SIMILARITY=2 \
SWITCHBOARD__DATABASE__URL="$E2E_DATABASE_URL" \
SWITCHBOARD__OUTBOX__PATH="$work/outbox.jsonl" \
SWITCHBOARD__SERVICES__INTERVIEW__BIND="127.0.0.1:$port" \
SWITCHBOARD__SERVICES__INTERVIEW__PUBLIC_URL="$INTERVIEW_URL" \
SWITCHBOARD__SERVICES__INTERVIEW__API_KEY="$INTERVIEW_API_KEY" \
SWITCHBOARD__SERVICES__ADVERTISING__BIND="127.0.0.1:$ad_port" \
SWITCHBOARD__PROVIDERS__STORAGE__PATH="$work/media" \
SWITCHBOARD__SERVER__DATA_DIR="$work/data" \
RUST_LOG=warn "$SWITCHBOARD_BIN" --config "$work/none.toml" serve --only interview,advertising &
pid=$!
# The server writes into $work until it has stopped (its node id, the last commits).
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
    curl -fs "$INTERVIEW_URL/health" >/dev/null 2>&1 && curl -fs "$ADVERTISING_URL/health" >/dev/null 2>&1 && break
    sleep 0.2
done
cd "$here" && node --test
