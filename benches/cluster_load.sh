#!/usr/bin/env bash
# One node against two over the same PostgreSQL and Redis (docs/scaling.md, "Measured"):
# benches/cluster_load.sh [SWITCHBOARD_BIN]; without one, the release build is made. Needs
# wrk, redis-server and redis-cli, and PostgreSQL (scripts/postgres starts it). Run it on a
# quiet machine (no build meanwhile): two nodes on one box share its cores.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
  BIN=$(realpath "$1")
else
  cargo build --release --bin switchboard
  BIN="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/switchboard"
fi
# A PostgreSQL server of the bench's own, so that its processes' CPU is the bench's alone.
export PG_PORT=${PG_PORT:-55442} PG_DATA=${PG_DATA:-/tmp/switchboard-pg-bench}
PG_URL=$(scripts/postgres)
python="$(scripts/venv tests/cluster)"
PATH="$PATH:$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
export PATH
exec "$python" benches/cluster_load.py "$BIN" "$PG_URL"
