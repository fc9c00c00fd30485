#!/usr/bin/env bash
# Publishes the service and measures what a user pays for it: the size of the published folder, the time
# from process start to the first successful /metrics of `run --simulate mixed` (median of N runs), and the
# resident set of that process once it has run idle for IDLE seconds (default 30; 0 skips it).
# Usage: bench/startup/measure.sh [runs=9] [publish-dir=$(mktemp -d)]
# PUBLISH=0 measures what is already in publish-dir (e.g. an older build kept for a before/after comparison).
# AOT=1 publishes the NativeAOT build (docs/aot.md) instead of the JIT build.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-9}
out=${2:-$(mktemp -d)}

if [ "${PUBLISH:-1}" != 0 ]; then
  if [ "${AOT:-0}" = 1 ]; then
    dotnet publish src/LogFlushMonitor -c Release -r linux-x64 -p:PublishAot=true -o "$out" >/dev/null
  else
    dotnet publish src/LogFlushMonitor -c Release -o "$out" >/dev/null
  fi
fi
echo "published size: $(du -sh "$out" | cut -f1) ($(du -sb "$out" | cut -f1) bytes) in $out"

times=()
for i in $(seq "$runs"); do
  log=$(mktemp)
  start=$(date +%s%N)
  "$out/logflushmonitor" run --simulate mixed --urls http://127.0.0.1:0 >"$log" 2>&1 &
  pid=$!
  url=
  deadline=$((start + 30000000000))
  while [ "$(date +%s%N)" -lt "$deadline" ]; do
    if [ -z "$url" ]; then
      # Port 0: the listener's real address is only in the log.
      url=$(grep -o 'Now listening on: http://[0-9.:]*' "$log" | head -1 | sed 's/Now listening on: //') || true
    fi
    if [ -n "$url" ] && curl -fs -o /dev/null "$url/metrics"; then
      break
    fi
    sleep 0.005
  done
  end=$(date +%s%N)
  kill -TERM "$pid"; wait "$pid" || true
  rm -f "$log"
  [ -n "$url" ] || { echo "run $i: no listener within 30 s" >&2; exit 1; }
  ms=$(((end - start) / 1000000))
  times+=("$ms")
  echo "run $i: ${ms} ms"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
echo "start to first /metrics: median ${median} ms over ${runs} runs (min $(printf '%s\n' "${times[@]}" | sort -n | head -1), max $(printf '%s\n' "${times[@]}" | sort -n | tail -1)); load average $(cut -d' ' -f1-3 /proc/loadavg)"

idle=${IDLE:-30}
if [ "$idle" -gt 0 ]; then
  log=$(mktemp)
  "$out/logflushmonitor" run --simulate mixed --urls http://127.0.0.1:0 >"$log" 2>&1 &
  pid=$!
  sleep "$idle"
  url=$(grep -o 'Now listening on: http://[0-9.:]*' "$log" | head -1 | sed 's/Now listening on: //') || true
  if [ -z "$url" ] || ! curl -fs -o /dev/null "$url/metrics"; then
    echo "idle run: no /metrics" >&2; kill -TERM "$pid"; exit 1
  fi
  sleep 1
  echo "idle after ${idle} s (MB): $(awk '/^(VmRSS|RssAnon|RssFile|VmHWM):/ {printf "%s %.1f  ", $1, $2 / 1024}' "/proc/$pid/status")load average $(cut -d' ' -f1-3 /proc/loadavg)"
  kill -TERM "$pid"; wait "$pid" || true
  rm -f "$log"
fi
