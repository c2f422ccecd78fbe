#!/usr/bin/env bash
# Several nodes through the public API: tests/cluster/run.sh SWITCHBOARD_BIN PG_ADMIN_URL
# (scripts/postgres prints an admin URL). Each check in checks.py gets a fresh database,
# Redis and three nodes. CLUSTER_CHECKS=name,name runs only those. Installs its Python
# libraries in a private venv, again only when requirements.txt changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 SWITCHBOARD_BIN PG_ADMIN_URL" >&2; exit 2; }

python="$("$here/../../scripts/venv" "$here")"
PATH="$PATH:$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
export PATH
exec "$python" "$here/harness.py" "$1" "$2" --only "${CLUSTER_CHECKS:-}"
