#!/usr/bin/env bash
# Load figures for the marketplace's car lists on a release build (docs/benchmarks.md):
#   1. POST /cars: listing creation (validation, vocabulary upsert, FTS triggers) while seeding
#   2. GET /cars with an equality filter and a sort, a range filter, and the default list
#   3. POST /cars/advanced-search with a misspelt free-text query plus filters
#   4. GET /cars/facets with a filter
# CONNS connections read (16; 1 gives unloaded latencies), SEED_CONNS write while seeding.
# Needs wrk (apt-get install wrk) and python3. Seeds SEED_SECS of concurrent creation on a
# scratch SQLite database (set DB_URL for PostgreSQL); limits are raised through the
# environment.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-16}
SEED_SECS=${SEED_SECS:-30}
SEED_CONNS=${SEED_CONNS:-16}
cargo build --release --bin switchboard
BIN="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/switchboard"
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SWITCHBOARD__DATABASE__URL=${DB_URL:-"sqlite://$WORK/db.sqlite?mode=rwc"}
export SWITCHBOARD__OUTBOX__PATH="$WORK/outbox.jsonl"
export SWITCHBOARD__SERVICES__MARKETPLACE__BIND=127.0.0.1:18181
export RUST_LOG=error
for l in GENERAL AUTH OTP_PER_PHONE; do
  export SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__${l}__LIMIT=100000000
  export SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__${l}__WINDOW_SECS=3600
done
"$BIN" admin create-marketplace-admin --phone +4917600000099 --password bench-secret >/dev/null
"$BIN" serve --only marketplace &
PID=$!
BASE=http://127.0.0.1:18181
for _ in $(seq 1 100); do curl -fs $BASE/health >/dev/null 2>&1 && break; sleep 0.1; done
TOKEN=$(curl -fs -X POST $BASE/auth/login -H "Content-Type: application/json" \
  -d '{"phone":"+4917600000099","password":"bench-secret"}' |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["token"])')

cat > "$WORK/create.lua" <<'LUA'
local cars = {
  {"Toyota", "Corolla"}, {"Toyota", "RAV4"}, {"Toyota", "Camry"}, {"Honda", "Civic"},
  {"Honda", "CR-V"}, {"Ford", "Focus"}, {"Ford", "F-150"}, {"Tesla", "Model 3"},
  {"Volkswagen", "Golf"}, {"BMW", "3 Series"}, {"Mercedes-Benz", "C-Class"}, {"Kia", "Sportage"},
  {"Hyundai", "Tucson"}, {"Mazda", "CX-5"}, {"Subaru", "Outback"}, {"Nissan", "Qashqai"},
}
local fuels = {"Petrol", "Diesel", "Electric", "Hybrid"}
local bodies = {"Sedan", "SUV", "Hatchback", "Coupe", "Wagon", "Pickup"}
local features = {"Bluetooth", "Sunroof", "Backup Camera", "Heated Seats", "Navigation",
  "Apple CarPlay", "Cruise Control", "Leather Seats"}
math.randomseed(42)
request = function()
  local c = cars[math.random(#cars)]
  local body = string.format(
    '{"make":"%s","model":"%s","year":%d,"mileage":%d,"price":%d,"fuelType":"%s",' ..
    '"transmission":"%s","bodyType":"%s","color":"Blue","condition":"Used",' ..
    '"description":"Well kept %s %s with full service history and new tyres.",' ..
    '"features":["%s","%s"]}',
    c[1], c[2], math.random(2005, 2026), math.random(0, 250000), math.random(2000, 90000),
    fuels[math.random(#fuels)], (math.random(2) == 1) and "Manual" or "Automatic",
    bodies[math.random(#bodies)], c[1], c[2], features[math.random(#features)],
    features[math.random(#features)])
  return wrk.format("POST", "/cars", nil, body)
end
LUA
run() { wrk -t"$(( CONNS < 2 ? 1 : 2 ))" -c"$CONNS" -d"$DURATION" --latency -H "Authorization: Bearer $TOKEN" \
  -H "Content-Type: application/json" "$@" | grep -E "Requests/sec|50%|99%|Non-2xx|requests in"; }

echo "== seeding: POST /cars ($SEED_CONNS connections, ${SEED_SECS}s)"
DURATION=${SEED_SECS}s CONNS=$SEED_CONNS run -s "$WORK/create.lua" $BASE
COUNT=$(curl -fs "$BASE/cars/facets?status=active" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["total"])')
echo "   listings: $COUNT"

echo "== GET /cars?make=toyota&sort=price:asc"
run "$BASE/cars?make=toyota&sort=price:asc"
echo "== GET /cars?minPrice=10000&maxPrice=20000&minYear=2015"
run "$BASE/cars?minPrice=10000&maxPrice=20000&minYear=2015"
echo "== GET /cars (newest first, page 50)"
run "$BASE/cars?page=50&limit=20"
cat > "$WORK/search.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"query":"Toyta Corola sunrof","filters":{"maxPrice":40000},"limit":20}'
LUA
echo "== POST /cars/advanced-search {query: Toyta Corola sunrof, maxPrice 40000}"
run -s "$WORK/search.lua" "$BASE/cars/advanced-search"
echo "== GET /cars/facets?fuelType=Petrol"
run "$BASE/cars/facets?fuelType=Petrol"
