#!/usr/bin/env bash
# Redis pub/sub fan-out (docs/scaling.md, the 100-node plan): every node of a cluster
# subscribes to the bus and to the Socket.IO rooms' channels, so each publish is written to
# every node. Publishes PUBLISHES messages of PAYLOAD bytes with redis-benchmark (4
# connections) to 1, 10 and 100 subscribers (redis-cli processes reading to /dev/null), and
# prints publishes/s and Redis's CPU per publish and per delivered message.
set -euo pipefail
PORT=${PORT:-18999}
PUBLISHES=${PUBLISHES:-200000}
PAYLOAD=${PAYLOAD:-200}
WORK=$(mktemp -d)
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
  --client-output-buffer-limit "pubsub 256mb 256mb 0" >/dev/null &
REDIS=$!
subs=()
cleanup() { kill "${subs[@]}" "$REDIS" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
until redis-cli -p "$PORT" ping >/dev/null 2>&1; do sleep 0.1; done
cpu() { awk '{print $14 + $15}' "/proc/$REDIS/stat"; }
tick=$(getconf CLK_TCK)
msg=$(head -c "$PAYLOAD" /dev/zero | tr '\0' x)
echo "| subscribers | publishes/s | Redis CPU per publish | per delivered message |"
echo "|---|---|---|---|"
for n in 1 10 100; do
  while [ "${#subs[@]}" -lt "$n" ]; do
    redis-cli -p "$PORT" subscribe bus >/dev/null &
    subs+=($!)
  done
  until [ "$(redis-cli -p "$PORT" pubsub numsub bus | tail -n 1)" -ge "$n" ]; do sleep 0.1; done
  before=$(cpu)
  rps=$(redis-benchmark -p "$PORT" -c 4 -n "$PUBLISHES" -q PUBLISH bus "$msg" |
    tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -n 1 | cut -d' ' -f1)
  after=$(cpu)
  python3 -c "
cpu = ($after - $before) / $tick / $PUBLISHES * 1e6
print(f'| $n | {float(\"$rps\"):,.0f} | {cpu:.2f} µs | {cpu / $n:.2f} µs |')"
done
