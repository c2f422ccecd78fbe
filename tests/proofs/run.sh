#!/usr/bin/env bash
# The labelled set of proof screenshots against the release binary:
# tests/proofs/run.sh SWITCHBOARD_BIN DB_URL [--report FILE]
# (DB_URL: `sqlite` for a fresh file, or a PostgreSQL admin URL for a fresh database).
# Installs its Python libraries (requests, Pillow) in a private venv, again only when
# requirements.txt changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 SWITCHBOARD_BIN DB_URL [--report FILE]" >&2; exit 2; }
bin="$(realpath "$1")"
shift
python="$("$here/../../scripts/venv" "$here")"
PATH="$PATH:$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
export PATH
exec "$python" "$here/run.py" "$bin" "$@"
