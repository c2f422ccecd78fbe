#!/usr/bin/env bash
# Load figures for the marketplace's car lists on a release build (docs/benchmarks.md,
# "Marketplace lists at 100,000 listings"):
#   1. POST /cars: seeds LISTINGS listings (100,000) through the API, SEED_CONNS at once, so
#      every listing goes through the real write path (validation, vocabulary, catalogue, FTS
#      triggers on SQLite, the generated tsvector on PostgreSQL)
#   2. GET /cars: the default list, a deep page, each sort, equality and range filters with
#      sorts
#   3. POST /cars/advanced-search with misspelt free text plus a filter, and sentences its
#      natural-language reader reads as filters
#   4. GET /cars/facets with and without a filter
#   5. the floor: the same list SQL timed in the sqlite3 shell (psql \timing on PostgreSQL)
# CONNS connections read (16; 1 gives unloaded latencies) for DURATION each. A scratch SQLite
# database by default; DB_URL=postgres://…/an_empty_database measures on PostgreSQL. KEEP=1
# keeps the scratch directory (and its database) and prints where it is; ONLY=regex runs only
# the read rows whose title matches; RATE=n paces them (see paced()). Needs wrk (apt-get install wrk), python3, curl, and
# sqlite3 or psql for the floor. Limits are raised through the environment.
# Seeding 100,000 listings takes minutes: it only adds the listings missing, so a second run
# on a seeded database measures at once (DB_URL=postgres://…/the_seeded_database, or, for
# SQLite, KEEP=1 WORK=<the kept directory holding db.sqlite>).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-16}
LISTINGS=${LISTINGS:-100000}
SEED_CONNS=${SEED_CONNS:-16}
ONLY=${ONLY:-.}
# BIN=path/to/switchboard measures that binary (e.g. a build of an earlier commit) instead.
if [ -z "${BIN:-}" ]; then
  cargo build --release --bin switchboard
  BIN="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/switchboard"
fi
WORK=${WORK:-$(mktemp -d)}
cleanup() {
  kill $PID 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
PID=
trap cleanup EXIT
export SWITCHBOARD__DATABASE__URL=${DB_URL:-"sqlite://$WORK/db.sqlite?mode=rwc"}
export SWITCHBOARD__OUTBOX__PATH="$WORK/outbox.jsonl"
export SWITCHBOARD__SERVICES__MARKETPLACE__BIND=127.0.0.1:18181
export RUST_LOG=error
for l in GENERAL AUTH OTP_PER_SENDER OTP_PER_PHONE; do
  export SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__${l}__LIMIT=100000000
  export SWITCHBOARD__SERVICES__MARKETPLACE__RATE_LIMITS__${l}__WINDOW_SECS=3600
done
"$BIN" admin create-marketplace-admin --phone +4917600000099 --password bench-secret >/dev/null 2>&1 || true
"$BIN" serve --only marketplace &
PID=$!
BASE=http://127.0.0.1:18181
for _ in $(seq 1 100); do curl -fs $BASE/health >/dev/null 2>&1 && break; sleep 0.1; done
TOKEN=$(curl -fs -X POST $BASE/auth/login -H "Content-Type: application/json" \
  -d '{"phone":"+4917600000099","password":"bench-secret"}' |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["token"])')

# Each wrk thread sends exactly its share of POST /cars, then only GET /health until every
# one of its listings is answered, and stops.
cat > "$WORK/create.lua" <<'LUA'
local cars = {
  {"Toyota", "Corolla"}, {"Toyota", "RAV4"}, {"Toyota", "Camry"}, {"Honda", "Civic"},
  {"Honda", "CR-V"}, {"Ford", "Focus"}, {"Ford", "F-150"}, {"Tesla", "Model 3"},
  {"Volkswagen", "Golf"}, {"BMW", "3 Series"}, {"Mercedes-Benz", "C-Class"}, {"Kia", "Sportage"},
  {"Hyundai", "Tucson"}, {"Mazda", "CX-5"}, {"Subaru", "Outback"}, {"Nissan", "Qashqai"},
}
local fuels = {"Petrol", "Diesel", "Electric", "Hybrid"}
local bodies = {"Sedan", "SUV", "Hatchback", "Coupe", "Wagon", "Pickup"}
local conditions = {"New", "Used", "Used", "Used", "Certified Pre-Owned"}
local colors = {"Blue", "Black", "White", "Silver", "Red", "Grey"}
local features = {"Bluetooth", "Sunroof", "Backup Camera", "Heated Seats", "Navigation",
  "Apple CarPlay", "Cruise Control", "Leather Seats"}
local threads, n = {}, 0
function setup(thread)
  n = n + 1
  thread:set("tid", n)
  table.insert(threads, thread)
end
function init(args)
  share = math.floor(tonumber(args[1]) / tonumber(args[2]))
  if tid == 1 then share = share + tonumber(args[1]) % tonumber(args[2]) end
  sent, answered = 0, 0
  math.randomseed(42 + tid)
end
request = function()
  if sent >= share then return wrk.format("GET", "/health") end
  sent = sent + 1
  local c = cars[math.random(#cars)]
  local body = string.format(
    '{"make":"%s","model":"%s","year":%d,"mileage":%d,"price":%d,"fuelType":"%s",' ..
    '"transmission":"%s","bodyType":"%s","color":"%s","condition":"%s",' ..
    '"description":"Well kept %s %s with full service history and new tyres.",' ..
    '"features":["%s","%s"]}',
    c[1], c[2], math.random(2005, 2026), math.random(0, 250000), math.random(2000, 90000),
    fuels[math.random(#fuels)], (math.random(2) == 1) and "Manual" or "Automatic",
    bodies[math.random(#bodies)], colors[math.random(#colors)],
    conditions[math.random(#conditions)], c[1], c[2], features[math.random(#features)],
    features[math.random(#features)])
  return wrk.format("POST", "/cars", nil, body)
end
response = function(status)
  -- GET /health answers 200, a listing 201 or, should it fail, an error: every answer but a
  -- 200 is one of this thread's listings answered.
  if status ~= 200 then answered = answered + 1 end
  if status ~= 200 and status ~= 201 then io.stderr:write("POST /cars answered " .. status .. "\n") end
  if answered >= share then wrk.thread:stop() end
end
LUA
threads() { echo $(( $1 < 2 ? 1 : 2 )); }
# A request slower than 30 s counts as a timeout ("Socket errors"); wrk's default of 2 s left
# no latencies at all for the slowest lists.
run() { wrk -t"$(threads "$CONNS")" -c"$CONNS" -d"$DURATION" --timeout 30s --latency -H "Authorization: Bearer $TOKEN" \
  -H "Content-Type: application/json" $(paced "$@") | grep -E "Requests/sec|50%|99%|Non-2xx|Socket errors|requests in"; }
# RATE=n paces the read rows at about n requests/s in all: each connection pauses a random
# 0–2×(CONNS/RATE) s after each answer (wrk's delay()), so latency is measured below the
# server's capacity rather than with requests queued behind one another. Prints the achieved
# rate. The arguments with a `-s script` get a copy of the script with the pause added.
paced() {
  if [ -z "${RATE:-}" ]; then printf '%s\n' "$@"; return; fi
  local script="" args=() pause="$WORK/paced-$RANDOM.lua"
  while [ $# -gt 0 ]; do
    if [ "$1" = -s ]; then script=$2; shift 2; else args+=("$1"); shift; fi
  done
  { [ -n "$script" ] && cat "$script"
    echo "function delay() return math.random(0, math.floor(2000 * $CONNS / $RATE)) end"; } > "$pause"
  printf '%s\n' -s "$pause" "${args[@]}"
}

listed() { curl -fs "$BASE/cars?limit=1&status=active" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pagination"]["totalItems"])'; }

HAVE=$(listed)
if [ "$HAVE" -lt "$LISTINGS" ]; then
  echo "== seeding: POST /cars ($SEED_CONNS connections, $((LISTINGS - HAVE)) listings)"
  START=$(date +%s)
  # wrk runs for its whole duration even when every thread has stopped: interrupt it (it
  # prints its figures then) once the listings are there, or when the count stands still.
  wrk -t"$(threads "$SEED_CONNS")" -c"$SEED_CONNS" -d3600s --latency -H "Authorization: Bearer $TOKEN" \
    -H "Content-Type: application/json" -s "$WORK/create.lua" $BASE -- \
    $((LISTINGS - HAVE)) "$(threads "$SEED_CONNS")" > "$WORK/seed.txt" 2>&1 &
  WRK=$!
  LAST=-1; SAME=0
  while sleep 2; do
    NOW=$(listed)
    [ "$NOW" -ge "$LISTINGS" ] && break
    if [ "$NOW" = "$LAST" ]; then SAME=$((SAME + 1)); [ $SAME -ge 5 ] && break; else SAME=0; fi
    LAST=$NOW
  done
  kill -INT $WRK; wait $WRK || true
  grep -E "Requests/sec|50%|99%|requests in|answered" "$WORK/seed.txt" || true
  # wrk spends a request or so of its share on checking the script: the last ones one by one.
  for _ in $(seq "$(listed)" $((LISTINGS - 1))); do
    curl -fs -o /dev/null -X POST "$BASE/cars" -H "Authorization: Bearer $TOKEN" \
      -H "Content-Type: application/json" -d '{"make":"Kia","model":"Sportage","year":2018,
      "mileage":64000,"price":17000,"fuelType":"Diesel","transmission":"Manual",
      "bodyType":"SUV","color":"Grey","condition":"Used","description":"One more."}'
  done
  echo "   seeded in $(( $(date +%s) - START ))s (the figures include the few GET /health at the end)"
fi
if [[ $SWITCHBOARD__DATABASE__URL == postgres* ]]; then
  # What autovacuum does a while after a bulk of inserts (statistics, visibility map for
  # index-only scans), done at once so every run starts alike.
  psql -qAt "$SWITCHBOARD__DATABASE__URL" -c "VACUUM ANALYZE"
fi
echo "   listings: $(listed)"

row() { # title, then wrk arguments
  local title=$1; shift
  if [[ $title =~ $ONLY ]]; then echo "== $title"; run "$@"; fi
}
get() { row "GET $1" "$BASE$1"; }
get "/cars"
get "/cars?page=50&limit=20"
get "/cars?page=2000&limit=20"
get "/cars?sort=price:asc"
get "/cars?sort=year:desc"
get "/cars?sort=mileage:asc"
get "/cars?make=toyota&sort=price:asc"
get "/cars?make=honda&model=civic&sort=year:desc"
get "/cars?fuelType=Diesel&sort=mileage:asc"
get "/cars?bodyType=SUV&transmission=Manual&sort=price:desc"
get "/cars?bodyType=SUV&fuelType=Diesel&sort=mileage:asc"
get "/cars?minPrice=10000&maxPrice=20000&minYear=2015"
get "/cars?maxMileage=50000&sort=price:asc"
get "/cars?minYear=2020&fuelType=Electric&sort=mileage:asc"
cat > "$WORK/search.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"query":"Toyta Corola sunrof","filters":{"maxPrice":40000},"limit":20}'
LUA
cat > "$WORK/search2.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"query":"hondda leathr","sortBy":"price:asc","limit":20}'
LUA
# The natural-language reader of the advanced search: attribute words, years and prices
# read as filters, beside misspelt text (3) or with no text left (4).
cat > "$WORK/search3.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"query":"red diesel suv under 30000 toyta","limit":20}'
LUA
cat > "$WORK/search4.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"query":"automatic petrol hatchback from 2018 under 15000","limit":20}'
LUA
row "POST /cars/advanced-search {query: Toyta Corola sunrof, maxPrice 40000}" \
  -s "$WORK/search.lua" "$BASE/cars/advanced-search"
row "POST /cars/advanced-search {query: hondda leathr, sortBy price:asc}" \
  -s "$WORK/search2.lua" "$BASE/cars/advanced-search"
row "POST /cars/advanced-search {query: red diesel suv under 30000 toyta} (read as filters + text)" \
  -s "$WORK/search3.lua" "$BASE/cars/advanced-search"
row "POST /cars/advanced-search {query: automatic petrol hatchback from 2018 under 15000} (all read as filters)" \
  -s "$WORK/search4.lua" "$BASE/cars/advanced-search"
get "/cars/facets"
get "/cars/facets?fuelType=Petrol"
get "/cars/facets?make=toyota&maxPrice=30000"

cat > "$WORK/create1.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"make":"Toyota","model":"Corolla","year":2019,"mileage":42000,"price":15500,' ..
  '"fuelType":"Petrol","transmission":"Manual","bodyType":"Sedan","color":"Blue",' ..
  '"condition":"Used","description":"Well kept Toyota Corolla with full service history.",' ..
  '"features":["Bluetooth","Sunroof"]}'
LUA
row "POST /cars (on $LISTINGS listings; adds a few thousand)" -s "$WORK/create1.lua" "$BASE/cars"

# The floor: each list's count and page as one statement in the database's own shell, warm
# (the best of three runs), with nothing else running.
kill $PID; wait $PID 2>/dev/null || true; PID=
cat > "$WORK/floor.sql" <<'SQL'
SELECT count(*), (SELECT group_concat(id) FROM (SELECT id FROM marketplace_cars WHERE status = 'active' ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 980) AS page) FROM marketplace_cars WHERE status = 'active';
SELECT count(*), (SELECT group_concat(id) FROM (SELECT id FROM marketplace_cars WHERE status = 'active' AND make_key = 'toyota' ORDER BY price ASC, created_at DESC, id DESC LIMIT 10) AS page) FROM marketplace_cars WHERE status = 'active' AND make_key = 'toyota';
SELECT count(*), (SELECT group_concat(id) FROM (SELECT id FROM marketplace_cars WHERE status = 'active' AND price >= 10000 AND price <= 20000 AND year >= 2015 ORDER BY created_at DESC, id DESC LIMIT 10) AS page) FROM marketplace_cars WHERE status = 'active' AND price >= 10000 AND price <= 20000 AND year >= 2015;
SELECT count(*), (SELECT group_concat(id) FROM (SELECT id FROM marketplace_cars WHERE status = 'active' AND fuel_type = 'Diesel' ORDER BY mileage ASC, created_at DESC, id DESC LIMIT 10) AS page) FROM marketplace_cars WHERE status = 'active' AND fuel_type = 'Diesel';
SELECT fuel_type, count(*) FROM marketplace_cars WHERE status = 'active' GROUP BY fuel_type;
SELECT (SELECT SUM(listings) FROM marketplace_car_counts WHERE status = 'active' AND fuel_type = 'Diesel' AND body_type = 'SUV'), (SELECT group_concat(id) FROM (SELECT id FROM marketplace_cars WHERE status = 'active' AND fuel_type = 'Diesel' AND body_type = 'SUV' ORDER BY mileage ASC, created_at DESC, id DESC LIMIT 10) AS page);
SQL
echo "== floor (best of 3): default page 50 / make+price / price+year range / fuel+mileage / one facet / body+fuel+mileage (kept count)"
if [[ $SWITCHBOARD__DATABASE__URL == sqlite* ]]; then
  DB=${SWITCHBOARD__DATABASE__URL#sqlite://}; DB=${DB%%\?*}
  for q in 1 2 3 4 5 6; do
    for _ in 1 2 3; do
      { echo ".timer on"; sed -n "${q}p" "$WORK/floor.sql"; } | sqlite3 "$DB" | sed -n 's/^Run Time: real \([0-9.]*\).*/\1/p'
    done | sort -n | head -1 | awk -v q=$q '{printf "   query %d: %.1f ms\n", q, $1 * 1000}'
  done
else
  for q in 1 2 3 4 5 6; do
    for _ in 1 2 3; do
      { echo '\timing on'; sed -n "${q}p" "$WORK/floor.sql" | sed 's/group_concat(id)/string_agg(id::text, $$,$$)/'; } |
        psql -qAt "$SWITCHBOARD__DATABASE__URL" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
    done | sort -n | head -1 | awk -v q=$q '{printf "   query %d: %.1f ms\n", q, $1}'
  done
  # The advanced search's statements as the server sends them (found with log_min_duration_statement),
  # each run six times in one session, the best of the last five (warm, no new connection).
  cat > "$WORK/search-floor.sql" <<'SQL'
SELECT id, COUNT(*) OVER () AS full_count FROM marketplace_cars WHERE status = 'active' AND price <= 40000 AND search_vector @@ (SELECT (phraseto_tsquery('english', 'toyta') || phraseto_tsquery('english', 'toyota')) && (phraseto_tsquery('english', 'corola') || phraseto_tsquery('english', 'corolla') || phraseto_tsquery('english', 'corsa')) && (phraseto_tsquery('english', 'sunrof') || phraseto_tsquery('english', 'sunroof'))) ORDER BY ts_rank(search_vector, (SELECT (phraseto_tsquery('english', 'toyta') || phraseto_tsquery('english', 'toyota')) && (phraseto_tsquery('english', 'corola') || phraseto_tsquery('english', 'corolla') || phraseto_tsquery('english', 'corsa')) && (phraseto_tsquery('english', 'sunrof') || phraseto_tsquery('english', 'sunroof')))) DESC, created_at DESC, id DESC LIMIT 20;
SELECT COUNT(*) FROM marketplace_cars WHERE status = 'active' AND search_vector @@ (SELECT (phraseto_tsquery('english', 'hondda') || phraseto_tsquery('english', 'honda')) && (phraseto_tsquery('english', 'leathr') || phraseto_tsquery('english', 'leather') || phraseto_tsquery('english', 'leaf')));
SELECT * FROM marketplace_cars WHERE status = 'active' AND search_vector @@ (SELECT (phraseto_tsquery('english', 'hondda') || phraseto_tsquery('english', 'honda')) && (phraseto_tsquery('english', 'leathr') || phraseto_tsquery('english', 'leather') || phraseto_tsquery('english', 'leaf'))) ORDER BY price ASC, created_at DESC, id DESC LIMIT 20;
SELECT id, COUNT(*) OVER () AS full_count FROM marketplace_cars WHERE status = 'active' AND fuel_type = 'Diesel' AND body_type = 'SUV' AND price <= 30000 AND (LOWER(color) = 'red' OR LOWER(color) LIKE 'red %' OR LOWER(color) LIKE '% red' OR LOWER(color) LIKE '% red %') AND search_vector @@ (SELECT phraseto_tsquery('english', 'toyta') || phraseto_tsquery('english', 'toyota')) ORDER BY ts_rank(search_vector, (SELECT phraseto_tsquery('english', 'toyta') || phraseto_tsquery('english', 'toyota'))) DESC, created_at DESC, id DESC LIMIT 20;
SELECT COUNT(*) FROM marketplace_cars WHERE status = 'active' AND fuel_type = 'Petrol' AND transmission = 'Automatic' AND body_type = 'Hatchback' AND price <= 15000 AND year >= 2018;
SELECT * FROM marketplace_cars WHERE status = 'active' AND fuel_type = 'Petrol' AND transmission = 'Automatic' AND body_type = 'Hatchback' AND price <= 15000 AND year >= 2018 ORDER BY created_at DESC, id DESC LIMIT 20;
SQL
  echo "== floor, PostgreSQL advanced search (best of 5, one session): Toyta Corola sunrof page / hondda leathr count, page / red diesel suv toyta page / automatic petrol hatchback count, page"
  for q in 1 2 3 4 5 6; do
    { echo '\timing on'; for _ in 1 2 3 4 5 6; do sed -n "${q}p" "$WORK/search-floor.sql"; done; } |
      psql -qAt -o /dev/null "$SWITCHBOARD__DATABASE__URL" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 5 |
      sort -n | head -1 | awk -v q=$q '{printf "   statement %d: %.2f ms\n", q, $1}'
  done
fi
