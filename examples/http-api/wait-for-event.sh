#!/bin/sh
# Checks that an event arrives, over Sluice's HTTP API, from any language: here a shell with curl.
# Starts a throwaway Sluice (--ephemeral: its data folder goes when it stops), sends one event as an
# app would, waits for it, and checks a property. Exits 0 when it arrived as expected, 1 otherwise.
#
#   SLUICE="npx sluice" sh examples/http-api/wait-for-event.sh
#   WAIT_EVENT="Something Else" TIMEOUT_MS=500 sh ...   # the failing case: the API answers 408 with the closest messages
set -eu
SLUICE=${SLUICE:-npx sluice}
WAIT_EVENT=${WAIT_EVENT:-Signed Up}
TIMEOUT_MS=${TIMEOUT_MS:-10000}

tmp=$(mktemp -d)
$SLUICE serve --ephemeral --json --ingest-port 0 --ui-port 0 --receiver-port 0 > "$tmp/ready.json" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
until [ -s "$tmp/ready.json" ]; do
  kill -0 "$pid" 2>/dev/null || { echo "sluice did not start" >&2; exit 1; }
  sleep 0.1
done
ready=$(cat "$tmp/ready.json")
field() { node -e 'const r = JSON.parse(process.argv[1]); process.stdout.write(String(process.argv[2] === "writeKey" ? r.sources[0].writeKey : r[process.argv[2]]))' "$ready" "$1"; }
API=$(field api)
TOKEN=$(field token)
INGEST=$(field ingest)
KEY=$(field writeKey)

# What the app under test would send (any Segment client does the same).
curl -sf -u "$KEY:" -H 'Content-Type: application/json' \
  -d '{"userId":"u_1","event":"Signed Up","properties":{"plan":"pro"}}' "$INGEST/v1/track" > /dev/null

# Wait for it, then check what arrived.
status=$(curl -s -o "$tmp/answer.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d "{\"filter\":{\"event\":\"$WAIT_EVENT\"},\"timeoutMs\":$TIMEOUT_MS}" "$API/messages/wait")
if [ "$status" != 200 ]; then
  node -e 'console.error(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).error.message)' "$tmp/answer.json"
  exit 1
fi
node -e '
  const { messages } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  if (messages[0].properties.plan !== "pro") { console.error("plan is", messages[0].properties.plan); process.exit(1); }
  console.log(`ok: "${messages[0].event}" arrived from ${messages[0].userId} on the ${messages[0].plan ?? messages[0].properties.plan} plan`);
' "$tmp/answer.json"
