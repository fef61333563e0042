#!/usr/bin/env bash
# The sluice GitHub Action's start (action.yml): runs `sluice serve --json` in the background, its
# store in a new folder of this job's temporary folder ($RUNNER_TEMP/sluice/data: the report stops the
# relay first, then reads the store whole, then removes it — with --ephemeral the store went with the
# relay, so the report read it before the stop and missed what the relay stored after), waits for its
# ready line, and hands the job its URLs, token and write key — in GITHUB_ENV for the next steps, in GITHUB_OUTPUT for `steps.<id>.outputs`. The token is masked
# before anything can print it. What the report step (report.sh) needs is kept in $RUNNER_TEMP/sluice.
#
# Inputs, from the action's `with:` through the environment (never pasted into this script):
#   SLUICE_VERSION        a version or dist-tag of the npm package (default latest), or a tarball or
#                         folder path, or any other npm package spec (file:, https:, github:)
#   SLUICE_CONFIG         a config file (sources, destinations, tracking plans), or empty
#   SLUICE_SERVE_ARGS     more arguments for sluice serve, split at spaces and line ends (e.g. --ingest-port 0)
#   SLUICE_START_TIMEOUT  seconds to wait for the ready line (npx may first download the package)
# Plain bash 3.2 and POSIX tools (macOS runners too); JSON is read with the node that runs Sluice.
set -euo pipefail

fail() {
  echo "::error title=Sluice did not start::$1"
  exit 1
}

: "${RUNNER_TEMP:?RUNNER_TEMP is not set: run this as a step of a GitHub Actions job}"
: "${GITHUB_ENV:?GITHUB_ENV is not set: run this as a step of a GitHub Actions job}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run this as a step of a GitHub Actions job}"
version="${SLUICE_VERSION:-latest}"
config="${SLUICE_CONFIG:-}"
timeout="${SLUICE_START_TIMEOUT:-60}"
case "$timeout" in '' | *[!0-9]*) fail "the timeout input must be a whole number of seconds, not \"$timeout\"" ;; esac
[ -z "$config" ] || [ -f "$config" ] || fail "the config input names $config, which is not a file (paths are relative to $(pwd))"
command -v node > /dev/null && command -v npx > /dev/null || fail "Sluice runs on Node.js, and there is no node or npx on PATH: add actions/setup-node (node-version: 24) before this step"

state="$RUNNER_TEMP/sluice"
if [ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2> /dev/null; then
  fail "a relay this action started is still running (process $(cat "$state/pid")): one per job, or stop it first with the report step"
fi
rm -rf "$state"
(umask 077 && mkdir -p "$state") # it will hold the ready line, whose token is a secret

# The package: a version or tag of sluice on npm, or as npm takes it (a tarball, a folder, a URL).
case "$version" in
  */* | *.tgz | *.tar.gz | *.tar | *:*)
    spec="$version"
    if [ -e "$version" ]; then spec="$(cd "$(dirname "$version")" && pwd)/$(basename "$version")"; fi
    ;;
  *) spec="sluice@$version" ;;
esac
# npx installs it once (into npm's cache); the relay then runs from its bin, so that the process this
# step starts, and the report step stops, is the relay itself and not npm around it.
if ! bin="$(npx --yes --package "$spec" -c 'command -v sluice' 2> "$state/npx.log")" || [ -z "$bin" ]; then
  cat "$state/npx.log" >&2
  fail "npx could not install $spec (its output is above): check the version input"
fi
echo "$bin" > "$state/bin"

rm -rf "$state/data"
args=(serve --json --data-dir "$state/data")
[ -z "$config" ] || args+=(--config "$config")
extra=()
# Split at spaces and at line ends: a workflow's `args: |` block gives them a line each (a plain `read`
# kept the first line alone, and dropped the rest without a word).
[ -z "${SLUICE_SERVE_ARGS:-}" ] || read -r -d '' -a extra <<< "$SLUICE_SERVE_ARGS" || true
# The store is the job's own folder (above): --ephemeral, which workflows written for the action before
# 2026-12-01 may pass, would be refused beside it. Left out, saying so.
kept=()
for arg in ${extra[@]+"${extra[@]}"}; do
  if [ "$arg" = "--ephemeral" ]; then
    echo "::notice title=Sluice::--ephemeral left out of args: the action keeps the store in \$RUNNER_TEMP/sluice/data and removes it after the report"
  else
    kept+=("$arg")
  fi
done
extra=(${kept[@]+"${kept[@]}"})
nohup "$bin" "${args[@]}" ${extra[@]+"${extra[@]}"} > "$state/stdout" 2> "$state/stderr" < /dev/null &
pid=$!
echo "$pid" > "$state/pid"

# The ready line: one JSON line on stdout. Its fields, checked and one per line, in this order.
fields() {
  node -e '
    const fs = require("node:fs");
    const text = fs.readFileSync(process.argv[1], "utf8");
    const end = text.indexOf("\n");
    if (end < 0) process.exit(3); // not written whole yet
    const r = JSON.parse(text.slice(0, end));
    const values = [r.token, r.ingest, r.api, r.sources?.[0]?.writeKey ?? "", r.ui, r.receiver, r.dataDir];
    if (values.some((v) => typeof v !== "string" || /[\r\n]/.test(v))) throw new Error("the ready line has not the fields this action reads: " + Object.keys(r).join(", "));
    process.stdout.write(values.join("\n") + "\n");
  ' "$state/stdout"
}

started=$SECONDS
until [ -s "$state/stdout" ] && ready="$(fields 2> "$state/fields.log")"; do
  if ! kill -0 "$pid" 2> /dev/null; then
    wait "$pid" && code=0 || code=$?
    echo "sluice serve wrote on stderr:" >&2
    sed 's/^/  /' "$state/stderr" >&2
    fail "sluice serve ($spec) exited with code $code before it was ready; its stderr is above"
  fi
  if [ $((SECONDS - started)) -ge "$timeout" ]; then
    kill "$pid" 2> /dev/null || true
    echo "sluice serve wrote on stderr:" >&2
    sed 's/^/  /' "$state/stderr" "$state/fields.log" >&2
    fail "sluice serve ($spec) was not ready after ${timeout} s (the timeout input); it was stopped, and its stderr is above"
  fi
  sleep 0.2
done

{
  read -r token
  read -r ingest
  read -r api
  read -r write_key
  read -r ui
  read -r receiver
  read -r data_dir
} <<< "$ready"
echo "::add-mask::$token"
cp "$state/stdout" "$state/ready.json"
# What the relay warns of at start (a webhook pointed at its own ingestion endpoint): annotations, as
# `sluice serve` prints them on its terminal; with --json they are in the ready line only.
node -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8").split("\n")[0]);
  const escaped = (s) => String(s).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  for (const warning of r.warnings ?? []) process.stdout.write(`::warning title=Sluice config::${escaped(warning)}\n`);
' "$state/ready.json"

{
  echo "SLUICE_INGEST_URL=$ingest"
  echo "SLUICE_API_URL=$api"
  echo "SLUICE_TOKEN=$token"
  echo "SLUICE_WRITE_KEY=$write_key"
  echo "SLUICE_UI_URL=$ui"
  echo "SLUICE_RECEIVER_URL=$receiver"
  echo "SLUICE_DATA_DIR=$data_dir"
} >> "$GITHUB_ENV"
{
  echo "ingest-url=$ingest"
  echo "api-url=$api"
  echo "token=$token"
  echo "write-key=$write_key"
  echo "ui-url=$ui"
  echo "receiver-url=$receiver"
  echo "data-dir=$data_dir"
  echo "pid=$pid"
} >> "$GITHUB_OUTPUT"
echo "Sluice $("$bin" --version) is running (process $pid): ingestion $ingest, HTTP API $api, data $data_dir"
