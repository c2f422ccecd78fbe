#!/usr/bin/env bash
# SIGKILL chaos against the release binary: tests/chaos/run.sh SWITCHBOARD_BIN DB_URL
# (DB_URL: `sqlite` for a fresh file per run, or a PostgreSQL admin URL for a fresh database
# per run). CHAOS_SEEDS=11,23,37 picks the kill points. Installs its Python libraries in a
# private venv, again only when requirements.txt changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 SWITCHBOARD_BIN DB_URL" >&2; exit 2; }
bin="$(realpath "$1")"

python="$("$here/../../scripts/venv" "$here")"
# psql for a fresh PostgreSQL database per run.
PATH="$PATH:$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
export PATH
exec "$python" "$here/chaos.py" "$bin" "$2"
