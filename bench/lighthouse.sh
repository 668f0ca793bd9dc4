#!/usr/bin/env bash
# The frame's first screen as a phone sees it (issue 29, item 7): Lighthouse 12.2.3 in Debian's
# Chromium, mobile emulation with its default (simulated) throttling, on the demo shop and on a
# bare frame opened with a fresh session code, against the release build in demo mode.
#
#   bench/lighthouse.sh [runs] [file]    (default 3 runs per page; prints a Markdown table of
#                                         medians with each run's figures and, given a file,
#                                         writes it there between <!-- bench:lighthouse -->
#                                         and <!-- /bench:lighthouse -->: `bench/run.sh` passes
#                                         docs/benchmarks.md)
#
# Run it with nothing else on the machine: Lighthouse's simulated throttling scales the main
# thread's work as it observed it, so a busy CPU reads as a slow phone.
set -euo pipefail
source "$(dirname "$0")/../.ci/env.sh"
RUNS="${1:-3}"
OUT="${2:-}"

bash .ci/install-tools serve
LIGHTHOUSE_DIR="$TOOLS_DIR/lighthouse"
if [ ! -x "$LIGHTHOUSE_DIR/node_modules/.bin/lighthouse" ]; then
  log "installing lighthouse 12.2.3 from npm"
  mkdir -p "$LIGHTHOUSE_DIR"
  # A package.json of its own, or npm installs into the nearest folder above that has one.
  [ -f "$LIGHTHOUSE_DIR/package.json" ] || echo '{ "private": true }' >"$LIGHTHOUSE_DIR/package.json"
  (cd "$LIGHTHOUSE_DIR" && npm install --no-audit --no-fund lighthouse@12.2.3 >/dev/null)
fi
check_wasm_opt
cargo leptos build --release --split
bash .ci/site-assets

WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
BASE="http://127.0.0.1:$PORT"
env -u DATABASE_URL BOXOFFICE_LISTEN="127.0.0.1:$PORT" BOXOFFICE_PUBLIC_URL="$BASE" \
  BOXOFFICE_DATA_DIR="$WORK" BOXOFFICE_DEMO=1 BOXOFFICE_LOG=warn \
  "$TARGET_DIR/release/server" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 120); do
  curl -fsS -o /dev/null "$BASE/readyz" 2>/dev/null && break
  sleep 0.5
done

# A bare frame needs a session code of its own per run: the demo partner's, as the demo shop's
# page asks for one.
frame_url() {
  curl -fsS -X POST "$BASE/demo/shop/session" -H 'content-type: application/json' \
    -d "{\"visitor\":\"demo-visit-$(python3 -c 'import uuid; print(uuid.uuid4())')\"}" |
    python3 -c 'import json, sys; d = json.load(sys.stdin)["data"]; print(d["frame_url"] + ("&" if "?" in d["frame_url"] else "?") + "session_code=" + d["session_code"])'
}

measure() { # url, report
  "$LIGHTHOUSE_DIR/node_modules/.bin/lighthouse" "$1" --quiet --only-categories=performance \
    --chrome-path=/usr/bin/chromium \
    --chrome-flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync" \
    --output=json --output-path="$2" >"$2.log" 2>&1 || { cat "$2.log" >&2; return 1; }
}

TABLE="$WORK/table.md"
echo "| page | runs | performance score | LCP s | TBT ms | CLS | targets |" | tee "$TABLE"
echo "|---|---|---|---|---|---|---|" | tee -a "$TABLE"
for page in "demo shop" "bare frame"; do
  for run in $(seq 1 "$RUNS"); do
    if [ "$page" = "demo shop" ]; then url="$BASE/demo/shop"; else url="$(frame_url)"; fi
    measure "$url" "$WORK/$run-${page// /-}.json"
  done
  python3 - "$page" "$WORK" "$RUNS" <<'PY'
import json, statistics, sys
page, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = []
for run in range(1, runs + 1):
    report = json.load(open(f"{work}/{run}-{page.replace(' ', '-')}.json"))
    audits = report["audits"]
    rows.append((
        report["categories"]["performance"]["score"] * 100,
        audits["largest-contentful-paint"]["numericValue"] / 1000,
        audits["total-blocking-time"]["numericValue"],
        audits["cumulative-layout-shift"]["numericValue"],
    ))
med = [statistics.median(col) for col in zip(*rows)]
each = lambda i, fmt: ", ".join(fmt.format(r[i]) for r in rows)
met = lambda ok: "met" if ok else "NOT met"
print(f"| {page} | {runs} | {med[0]:.0f} ({each(0, '{:.0f}')}) | {med[1]:.2f} ({each(1, '{:.2f}')}) "
      f"| {med[2]:.0f} ({each(2, '{:.0f}')}) | {med[3]:.3f} ({each(3, '{:.3f}')}) "
      f"| LCP < 2.5 s: {met(med[1] < 2.5)}; TBT < 200 ms: {met(med[2] < 200)}; CLS < 0.1: {met(med[3] < 0.1)} |")
PY
done | tee -a "$TABLE"

[ -n "$OUT" ] || exit 0
python3 - "$OUT" "$TABLE" "$RUNS" "$(git describe --always --dirty=" (with uncommitted changes)")" <<'PY'
import datetime, sys
out, table, runs, commit = sys.argv[1:]
start, end = "<!-- bench:lighthouse -->", "<!-- /bench:lighthouse -->"
doc = open(out).read()
if start not in doc or end not in doc:
    sys.exit(f"{out} has no {start} … {end} section to write")
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
section = (f"{start}\n`bench/lighthouse.sh` (issue 29, item 7): Lighthouse 12.2.3 in Debian's Chromium, its "
           "mobile emulation with the default simulated throttling (a mid-range phone on a slow 4G "
           f"link), against the release build in demo mode, {runs} runs per page, nothing else "
           f"running; medians, each run in brackets. Measured {now} at {commit}.\n\n"
           f"{open(table).read()}{end}")
head, rest = doc.split(start, 1)
open(out, "w").write(head + section + rest.split(end, 1)[1])
print(f"wrote {out}")
PY
