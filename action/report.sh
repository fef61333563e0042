#!/usr/bin/env bash
# The sluice GitHub Action's report (action/report/action.yml; run it with `if: always()`): writes what
# the relay that start.sh started holds — its messages as NDJSON and its webhook attempts as HAR, files
# to upload with actions/upload-artifact, with the relay's own log beside them — appends a summary
# (`sluice summary`: events by type, tracking-plan violations, failed deliveries) to the job's summary.
# It stops the relay first (SIGTERM: it finishes what it accepted), reads its store, then removes it.
# It does every part it can; it fails (exit 1) when the relay was gone before it, or a part failed.
#
# Inputs, through the environment:
#   SLUICE_REPORT_PATH   the folder for the files (default sluice-report, from the working directory)
#   SLUICE_REPORT_LIMIT  rows per table of the summary (default 10, at most 100)
#   SLUICE_STOP_TIMEOUT  seconds to wait for the relay to exit before it is killed (default 30)
set -uo pipefail

: "${RUNNER_TEMP:?RUNNER_TEMP is not set: run this as a step of a GitHub Actions job}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run this as a step of a GitHub Actions job}"
summary_file="${GITHUB_STEP_SUMMARY:-/dev/null}"
out="${SLUICE_REPORT_PATH:-sluice-report}"
limit="${SLUICE_REPORT_LIMIT:-10}"
stop_timeout="${SLUICE_STOP_TIMEOUT:-30}"
state="$RUNNER_TEMP/sluice"
failed=0

# Alive: signalled, and not a zombie waiting for a parent that does not reap it.
alive() {
  kill -0 "$1" 2> /dev/null && [ "$(ps -o stat= -p "$1" 2> /dev/null | cut -c1)" != "Z" ]
}

if [ ! -f "$state/ready.json" ]; then
  # The start step did not run, or failed (and said why); a relay it left starting is stopped.
  [ -f "$state/pid" ] && alive "$(cat "$state/pid")" && kill -TERM "$(cat "$state/pid")"
  echo "::warning title=No Sluice to report on::no relay of the sluice action was ready in this job (its step did not run, or failed and said why)"
  printf '## Sluice\n\nNo relay was ready in this job: nothing to report.\n' >> "$summary_file"
  exit 0
fi
pid="$(cat "$state/pid")"
bin="$(cat "$state/bin")"
data_dir="$(node -e 'process.stdout.write(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).dataDir)' "$state/ready.json" 2> /dev/null)"

mkdir -p "$out" || { echo "::error title=Sluice report::cannot create the folder $out (the path input)"; exit 1; }
cp "$state/stderr" "$out/sluice-relay.log"
{
  echo "ndjson=$out/sluice-messages.ndjson"
  echo "har=$out/sluice-webhooks.har"
  echo "path=$out"
} >> "$GITHUB_OUTPUT"

# Stopped first: it stores what it accepted (and what a client flushed on its way out), then the store is
# read whole. Before 2026-12-01 the exports ran first and anything stored after them went with the
# relay's temporary folder.
if alive "$pid"; then
  echo "Stopping Sluice (process $pid)"
  kill -TERM "$pid" 2> /dev/null
  waited=0
  while alive "$pid" && [ "$waited" -lt $((stop_timeout * 5)) ]; do
    sleep 0.2
    waited=$((waited + 1))
  done
  if alive "$pid"; then
    echo "::error title=Sluice report::the relay (process $pid) did not exit ${stop_timeout} s after SIGTERM; it was killed"
    kill -KILL "$pid" 2> /dev/null
    failed=1
  fi
  cp "$state/stderr" "$out/sluice-relay.log"
else
  echo "::error title=Sluice stopped early::the relay (process $pid) was no longer running when the report began; what it had stored is reported. Its stderr:"
  sed 's/^/  /' "$state/stderr"
  printf '## Sluice\n\nThe relay had stopped before the report: what it had stored is below and among the files, with its log (`sluice-relay.log`).\n\n' >> "$summary_file"
  failed=1
fi

if [ -n "$data_dir" ] && [ -f "$data_dir/sluice.db" ]; then
  part() { # what it makes, then the command (whose stderr says what went wrong)
    local what="$1"
    shift
    if ! "$@"; then
      echo "::error title=Sluice report::$what failed (its message is above)"
      failed=1
    fi
  }
  part "the NDJSON export" "$bin" export --data-dir "$data_dir" --out "$out/sluice-messages.ndjson" --force
  part "the HAR export" "$bin" export --har --data-dir "$data_dir" --out "$out/sluice-webhooks.har" --force
  if text="$("$bin" summary --data-dir "$data_dir" --limit "$limit")"; then
    printf '%s\n' "$text" >> "$summary_file"
  else
    echo "::error title=Sluice report::sluice summary failed (its message is above)"
    failed=1
  fi
else
  echo "::error title=Sluice report::the relay's store ($data_dir) is not there: nothing could be exported"
  printf '## Sluice\n\nThe relay'"'"'s store was not there: nothing could be exported. Its log is `sluice-relay.log` among the files.\n' >> "$summary_file"
  failed=1
fi
# The folder start.sh made for the store, and only that one.
[ "$data_dir" = "$state/data" ] && rm -rf "$data_dir"
rm -f "$state/pid"
echo "Sluice's files are in $out: $(cd "$out" && ls | tr '\n' ' ')"
exit "$failed"
