#!/bin/sh
# Service `workload` of docker-compose.yml: drives the stack's SQL Server through the scenarios in turn, for ever,
# so the dashboard shows each flush shape (`logflushmonitor workload`, the same executable as the monitor).
set -u

scenarios=${WORKLOAD_SCENARIOS:-autocommit batched big-transaction delayed-durability sequence-nocache sequence-cache}
duration=${WORKLOAD_DURATION:-2m}
sessions=${WORKLOAD_SESSIONS:-4}

while :; do
  for scenario in $scenarios; do
    echo "workload: $scenario for $duration with $sessions sessions"
    /app/logflushmonitor workload --scenario "$scenario" --duration "$duration" --sessions "$sessions"
    code=$?
    if [ "$code" -eq 2 ]; then
      # Invalid command line or configuration: retrying cannot help.
      echo "workload: invalid settings (exit 2), stopping" >&2
      exit 2
    elif [ "$code" -ne 0 ]; then
      echo "workload: $scenario failed (exit $code), next scenario in 10 s" >&2
      sleep 10
    fi
  done
done
