#!/usr/bin/env bash
# Load figures for the advertising service on a release build (docs/benchmarks.md,
# "Advertising (issue 21)"):
#   1. seeds ADS ads (100,000) with `switchboard admin create-ad --count N`: one process per
#      country and category, each ad through the same write path as one made by hand (the ad
#      row and its funding deposit with its ledger legs and balances, in one transaction);
#      most ads in a few big countries, spread unevenly over the categories
#   2. seeds the last 7 days' activity trending reads: posters, subscriptions and approved
#      screenshots spread over the days, written as SQL rows (activity only: no money moves)
#   3. GET /ads (the poster's country, page 1 and page 50), by category, by another country,
#      and GET /ads/trending, with wrk at CONNS connections (16; 1 gives unloaded latencies)
#      for DURATION each
#   4. the floor: the same list SQL timed in the sqlite3 shell (psql \timing on PostgreSQL)
#   5. personalised videos per minute: VIDEOS posters (8) subscribe to an ad whose video is a
#      generated 15 s 1280x720 30 fps clip (ffmpeg lavfi testsrc); the time until every
#      GET /subscriptions/:id/video answers ready, with [providers.video] max_concurrent
#      VIDEO_CONCURRENCY (each of "1 2" in turn)
#   6. jobs per second with no-op handlers: the jobs_load example (benches/jobs_load.rs), JOBS
#      (20,000) jobs on the same database
# A scratch SQLite database by default; DB_URL=postgres://…/an_empty_database measures on
# PostgreSQL. KEEP=1 keeps the scratch directory (and its database) and prints where it is;
# WORK=dir reuses one (seeding only what is missing). ONLY=regex runs only the parts whose
# title matches (e.g. ONLY='^GET' the reads, ONLY=floor, ONLY=videos, ONLY=jobs; ONLY='^$'
# seeds only). Needs wrk, python3, curl, ffmpeg, and sqlite3 or psql for the floor. Limits
# are raised through the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-16}
ADS=${ADS:-100000}
VIDEOS=${VIDEOS:-8}
VIDEO_CONCURRENCY=${VIDEO_CONCURRENCY:-"1 2"}
JOBS=${JOBS:-20000}
SEED_PROCS=${SEED_PROCS:-1}
ONLY=${ONLY:-.}
want() { [[ $1 =~ $ONLY ]]; }
# BIN=path/to/switchboard measures that binary (e.g. a build of an earlier commit) instead.
if [ -z "${BIN:-}" ]; then
  cargo build --release --bin switchboard
  BIN="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/switchboard"
fi
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
cleanup() {
  kill $PID 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
PID=
trap cleanup EXIT
export SWITCHBOARD__DATABASE__URL=${DB_URL:-"sqlite://$WORK/db.sqlite?mode=rwc"}
export SWITCHBOARD__OUTBOX__PATH="$WORK/outbox.jsonl"
export SWITCHBOARD__PROVIDERS__STORAGE__PATH="$WORK/media"
export SWITCHBOARD__SERVICES__ADVERTISING__BIND=127.0.0.1:18185
export SWITCHBOARD__SERVICES__ADVERTISING__OTP_COOLDOWN_SECS=0
export RUST_LOG=error
for l in GENERAL AUTH OTP_PER_SENDER OTP_PER_PHONE UPLOADS; do
  export SWITCHBOARD__SERVICES__ADVERTISING__RATE_LIMITS__${l}__LIMIT=100000000
  export SWITCHBOARD__SERVICES__ADVERTISING__RATE_LIMITS__${l}__WINDOW_SECS=3600
done
BASE=http://127.0.0.1:18185
PG=0; [[ $SWITCHBOARD__DATABASE__URL == postgres* ]] && PG=1
sql() { # runs SQL from stdin on the database
  if [ $PG = 1 ]; then psql -qAt -v ON_ERROR_STOP=1 "$SWITCHBOARD__DATABASE__URL"; else
    local db=${SWITCHBOARD__DATABASE__URL#sqlite://}; sqlite3 -bail -cmd ".timeout 10000" "${db%%\?*}"; fi
}
start() {
  "$BIN" serve --only advertising &
  PID=$!
  for _ in $(seq 1 100); do curl -fs $BASE/health >/dev/null 2>&1 && return; sleep 0.1; done
  echo "the server did not start" >&2; exit 1
}
stop() { kill $PID; wait $PID 2>/dev/null || true; PID=; }

# Posters sign in as the app does: a code by SMS (the outbox), then verify-otp. Prints one
# token per phone given on stdin ("phone country" lines).
cat > "$WORK/signin.py" <<'PY'
import json, re, sys, urllib.request
base, outbox = sys.argv[1], sys.argv[2]
def post(path, body, token=None):
    req = urllib.request.Request(base + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    if token:
        req.add_header("Authorization", "Bearer " + token)
    return json.load(urllib.request.urlopen(req))
for line in sys.stdin:
    phone, country = line.split()
    post("/auth/request-otp", {"phoneNumber": phone, "countryId": country})
    code = None
    for l in open(outbox):
        m = json.loads(l)
        if m.get("to") == phone:
            code = re.search(r"\b\d{6}\b", m["text"]).group(0)
    print(post("/auth/verify-otp", {"phoneNumber": phone, "code": code})["data"]["token"])
PY
signin() { python3 "$WORK/signin.py" $BASE "$SWITCHBOARD__OUTBOX__PATH"; }

# 1. Ads. Shares of the ads per country (most in a few big ones) and weights of the
# categories; each (country, category) pair is one `create-ad --count` process.
COUNTRIES="NG:30 US:20 IN:15 GB:10 DE:8 KE:6 GH:4 ZA:3 FR:2 BR:2"
CATEGORY_WEIGHTS="30 20 12 10 8 6 5 4 3 2"
ffmpeg -loglevel error -y -f lavfi -i testsrc=duration=1:size=320x240:rate=10 -pix_fmt yuv420p "$WORK/seed.mp4"
HAVE=$(echo "SELECT count(*) FROM advertising_ads;" | sql 2>/dev/null || echo 0)
if [ "$HAVE" -lt "$ADS" ]; then
  echo "== seeding $((ADS - HAVE)) ads: switchboard admin create-ad --count"
  START=$(date +%s)
  "$BIN" admin create-ad --title probe --country NG --video "$WORK/seed.mp4" --payout-usd 1.50 \
    --budget-usd 150 >/dev/null # migrates the database, so the categories can be read
  HAVE=$((HAVE + 1))
  mapfile -t CATS < <(echo "SELECT id FROM advertising_categories ORDER BY id;" | sql)
  python3 - "$((ADS - HAVE))" "$COUNTRIES" "$CATEGORY_WEIGHTS" "${CATS[@]}" > "$WORK/plan.txt" <<'PY'
import sys
total, countries, weights, cats = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3].split(), sys.argv[4:]
pairs = [(c.split(":")[0], cat, int(c.split(":")[1]) * int(w))
         for c in countries for cat, w in zip(cats, weights)]
whole = sum(w for _, _, w in pairs)
counts = [total * w // whole for _, _, w in pairs]
counts[0] += total - sum(counts)
for (country, cat, _), n in zip(pairs, counts):
    if n:
        print(country, cat, n)
PY
  # SEED_PROCS at once (1: SQLite takes one writer at a time anyway).
  xargs -P "$SEED_PROCS" -L 1 sh -c '"$1" admin create-ad --title "Bench ad $3 $4" --country "$3" \
    --category "$4" --count "$5" --video "$2" --payout-usd 1.50 --budget-usd 150 \
    --description "Post this video on your status and earn." >/dev/null' sh "$BIN" \
    "$WORK/seed.mp4" < "$WORK/plan.txt"
  echo "   seeded in $(( $(date +%s) - START ))s"
fi

# 2. The last 7 days' activity: 2,000 posters in NG each subscribed to 2 of 300 ads, and a
# third of those subscriptions with an approved screenshot, spread over the week.
if [ "$(echo "SELECT count(*) FROM advertising_subscriptions;" | sql)" = 0 ]; then
  echo "== seeding trending activity (SQL)"
  ID=$([ $PG = 1 ] && echo "id" || echo "hex(id)") # SQLite stores uuids as 16-byte blobs
  echo "SELECT $ID FROM advertising_ads WHERE country = 'NG' AND listed ORDER BY created_at DESC LIMIT 300;" |
    sql > "$WORK/hot.txt"
  python3 - "$PG" "$WORK/hot.txt" > "$WORK/activity.sql" <<'PY'
import random, sys, uuid
from datetime import datetime, timedelta, timezone
pg, hot = sys.argv[1] == "1", [l.strip() for l in open(sys.argv[2]) if l.strip()]
random.seed(21)
now = datetime.now(timezone.utc)
def u(x):  # a uuid as this backend stores it (SQLite: 16-byte blob)
    return f"'{x}'" if pg else f"X'{uuid.UUID(str(x)).hex}'"
def t(x):
    return "'" + x.strftime("%Y-%m-%dT%H:%M:%S.%f000+00:00") + "'"  # as sqlx writes them
alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
print("BEGIN;")
for p in range(2000):
    pid = uuid.uuid4()
    made = now - timedelta(days=8)
    code = "".join(random.choice(alphabet) for _ in range(8))
    print(f"INSERT INTO advertising_posters (id, phone, country, referral_code, status, kyc_status,"
          f" created_at, updated_at) VALUES ({u(pid)}, '+23480{p:08d}', 'NG', '{code}', 'active',"
          f" 'none', {t(made)}, {t(made)});")
    # Hot ads are hotter: a skewed pick.
    for ad in {hot[int(len(hot) * random.random() ** 2)] for _ in range(2)}:
        sid, at = uuid.uuid4(), now - timedelta(seconds=random.uniform(0, 7 * 86400))
        print(f"INSERT INTO advertising_subscriptions (id, poster_id, ad_id, phone_info, status,"
              f" created_at, updated_at) VALUES ({u(sid)}, {u(pid)}, {u(ad)}, '{{}}', 'ready',"
              f" {t(at)}, {t(at)});")
        if random.random() < 1 / 3:
            decided = min(now, at + timedelta(hours=random.uniform(1, 24)))
            print(f"INSERT INTO advertising_screenshots (id, poster_id, subscription_id, ad_id,"
                  f" image_key, content_type, width, height, phash, band0, band1, band2, band3,"
                  f" band4, band5, band6, band7, status, payout_cents, approved_subscription_id,"
                  f" decided_by, decided_at, created_at, updated_at) VALUES ({u(uuid.uuid4())},"
                  f" {u(pid)}, {u(sid)}, {u(ad)}, 'seed/none.png', 'image/png', 1080, 1920,"
                  f" {random.getrandbits(62)}, 0, 0, 0, 0, 0, 0, 0, 0, 'approved', 150, {u(sid)},"
                  f" 'ocr', {t(decided)}, {t(at)}, {t(decided)});")
print("COMMIT;")
PY
  sql < "$WORK/activity.sql" >/dev/null
fi
if [ $PG = 1 ]; then
  # What autovacuum does a while after a bulk of inserts (statistics, visibility map for
  # index-only scans), done at once so every run starts alike.
  echo "VACUUM ANALYZE;" | sql
else
  echo "ANALYZE;" | sql
fi
echo "   ads: $(echo "SELECT count(*) FROM advertising_ads;" | sql), listed in NG: $(echo "SELECT count(*) FROM advertising_ads WHERE listed AND country = 'NG';" | sql)"

threads() { echo $(( $1 < 2 ? 1 : 2 )); }
run() { wrk -t"$(threads "$CONNS")" -c"$CONNS" -d"$DURATION" --timeout 30s --latency \
  -H "Authorization: Bearer $TOKEN" "$@" | grep -E "Requests/sec|50%|99%|Non-2xx|Socket errors|requests in"; }
row() { # title, then wrk arguments
  local title=$1; shift
  if want "$title"; then echo "== $title ($CONNS connections)"; run "$@"; fi
}

# 3. The reads, by a poster in NG.
CATEGORY=$(echo "SELECT category_id FROM advertising_ads WHERE country = 'NG' AND category_id IS NOT NULL GROUP BY category_id ORDER BY count(*) DESC LIMIT 1;" | sql)
reads=0
for t in "GET /ads" "GET /ads?page=50" "GET /ads?categoryId=$CATEGORY" "GET /ads?countryCode=KE" "GET /ads/trending"; do
  want "$t" && reads=1
done
if [ $reads = 1 ]; then
  start
  TOKEN=$(echo "+2348099999999 NG" | signin)
  row "GET /ads" "$BASE/ads"
  row "GET /ads?page=50" "$BASE/ads?page=50"
  row "GET /ads?categoryId=$CATEGORY" "$BASE/ads?categoryId=$CATEGORY"
  row "GET /ads?countryCode=KE" "$BASE/ads?countryCode=KE"
  row "GET /ads/trending" "$BASE/ads/trending"
  stop
fi

# 4. The floor: each list's count (the kept counts, as the server reads it since m20261206)
# and page as statements in the database's own shell, warm (the best of three runs), with
# nothing else running. SQLite stores booleans as 0/1.
if want floor; then
  T=$([ $PG = 1 ] && echo true || echo 1)
  cat > "$WORK/floor.sql" <<SQL
SELECT SUM(listed_ads) FROM advertising_ad_counts WHERE country = 'NG'; SELECT * FROM advertising_ads WHERE listed = $T AND country = 'NG' ORDER BY created_at DESC, id DESC LIMIT 20;
SELECT SUM(listed_ads) FROM advertising_ad_counts WHERE country = 'NG'; SELECT * FROM advertising_ads WHERE listed = $T AND country = 'NG' ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 980;
SELECT SUM(listed_ads) FROM advertising_ad_counts WHERE country = 'NG' AND category = '$CATEGORY'; SELECT * FROM advertising_ads WHERE listed = $T AND country = 'NG' AND category_id = '$CATEGORY' ORDER BY created_at DESC, id DESC LIMIT 20;
SELECT SUM(listed_ads) FROM advertising_ad_counts WHERE country = 'KE'; SELECT * FROM advertising_ads WHERE listed = $T AND country = 'KE' ORDER BY created_at DESC, id DESC LIMIT 20;
SQL
  echo "== floor (best of 3): NG page 1 / NG page 50 / NG + category / KE page 1 (count + page)"
  for q in 1 2 3 4; do
    for _ in 1 2 3; do
      if [ $PG = 1 ]; then
        { echo '\timing on'; sed -n "${q}p" "$WORK/floor.sql"; } | sql | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk '{s += $1} END {print s}'
      else
        { echo ".timer on"; sed -n "${q}p" "$WORK/floor.sql"; } | sql | sed -n 's/^Run Time: real \([0-9.]*\).*/\1/p' | awk '{s += $1 * 1000} END {print s}'
      fi
    done | sort -n | head -1 | awk -v q=$q '{printf "   query %d: %.2f ms\n", q, $1}'
  done
fi

# 5. Personalised videos per minute.
if want videos && [ "$VIDEOS" -gt 0 ]; then
  ffmpeg -loglevel error -y -f lavfi -i testsrc=duration=15:size=1280x720:rate=30 -pix_fmt yuv420p "$WORK/clip.mp4"
  seq 1 "$VIDEOS" | awk '{printf "+2348077%06d NG\n", $1}' > "$WORK/video-posters.txt"
  for c in $VIDEO_CONCURRENCY; do
    AD=$("$BIN" admin create-ad --title "Video bench $c" --country NG --video "$WORK/clip.mp4" \
      --payout-usd 1.00 --budget-usd 100 | sed -n 's/^ad_id: //p')
    SWITCHBOARD__PROVIDERS__VIDEO__MAX_CONCURRENT=$c start
    signin < "$WORK/video-posters.txt" > "$WORK/video-tokens.txt"
    echo "== videos: $VIDEOS posters subscribe to one ad (15 s 1280x720 30 fps clip), max_concurrent $c"
    python3 - $BASE "$AD" "$WORK/video-tokens.txt" <<'PY'
import json, sys, time, urllib.request
base, ad, tokens = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().split()
def call(path, token, body=None):
    req = urllib.request.Request(base + path, json.dumps(body).encode() if body else None,
                                 {"Content-Type": "application/json", "Authorization": "Bearer " + token})
    return json.load(urllib.request.urlopen(req))["data"]
start = time.monotonic()
subs = [(t, call("/subscriptions", t, {"adId": ad, "phoneInfo": {"model": "bench"}})["subscription"]["id"])
        for t in tokens]
left, failed = dict(subs), 0
while left:
    time.sleep(0.25)
    for t, s in list(left.items()):
        status = call(f"/subscriptions/{s}/video", t)["status"]
        if status != "processing":
            failed += status != "ready"
            del left[t]
took = time.monotonic() - start
print(f"   {len(subs)} videos in {took:.1f} s = {len(subs) * 60 / took:.1f} videos/min"
      f" ({failed} failed)")
PY
    stop
  done
fi

# 6. Jobs per second with no-op handlers, on the same database.
if want jobs && [ "$JOBS" -gt 0 ]; then
  cargo build --release --example jobs_load
  EX="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/examples/jobs_load"
  for mode in single batch; do
    echo "== jobs: $JOBS no-op jobs, $mode handler"
    "$EX" "$SWITCHBOARD__DATABASE__URL" "$JOBS" $mode
  done
fi
