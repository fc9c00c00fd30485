#!/bin/sh
# Service `workload` of docker-compose.yml: drives the stack's SQL Server through the scenarios in turn, for ever,
# so the dashboard shows each flush shape (`logflushmonitor workload`, the same executable as the monitor).
# As the container's PID 1 it passes SIGTERM and SIGINT on to the running workload and exits when that has stopped,
# so `docker compose stop` ends the workload cleanly instead of waiting for its timeout and killing it.
set -u

scenarios=${WORKLOAD_SCENARIOS:-autocommit batched big-transaction delayed-durability sequence-nocache sequence-cache}
duration=${WORKLOAD_DURATION:-2m}
sessions=${WORKLOAD_SESSIONS:-4}
app=${LOGFLUSHMONITOR_EXECUTABLE:-/app/logflushmonitor}
child=

stop() {
  echo "workload: stopping" >&2
  # A signal right after a workload was started in the background runs this trap before `child=$!` does: the
  # workload is then $!, still running. (Without this the loop exited and left that workload running.)
  if [ -z "$child" ] && [ -n "${!:-}" ] && kill -0 "$!" 2>/dev/null; then
    child=$!
  fi
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child"
  fi
  exit 143
}
trap stop TERM INT

while :; do
  for scenario in $scenarios; do
    echo "workload: $scenario for $duration with $sessions sessions"
    # In the background and waited for, so that a signal reaches the trap while the workload runs.
    "$app" workload --scenario "$scenario" --duration "$duration" --sessions "$sessions" &
    child=$!
    wait "$child"
    code=$?
    child=
    if [ "$code" -eq 2 ]; then
      # Invalid command line or configuration: retrying cannot help.
      echo "workload: invalid settings (exit 2), stopping" >&2
      exit 2
    elif [ "$code" -ne 0 ]; then
      echo "workload: $scenario failed (exit $code), next scenario in 10 s" >&2
      sleep 10 &
      child=$!
      wait "$child"
      child=
    fi
  done
done
