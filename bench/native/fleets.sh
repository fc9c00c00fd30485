#!/usr/bin/env bash
# Issue 23 item 5: one table, measured in one run with the NativeAOT build and a real server's counter set (make-fleet
# writes all 47 counters of the Databases object; the service keeps what Sources:SqlServer:Counters selects), per
# fleet: series per database, scrape bytes plain and gzip, scrape time, CPU per scrape and resident set after 100
# scrapes, and whether any metric overflowed at the default settings.
# Usage: bench/native/fleets.sh [work directory, default /tmp/lfm-fleets] [scrapes, default 100] [-- service arguments]
# Needs curl and python3 besides the .NET SDK. About 10 minutes on 2 cores (the NativeAOT publish is most of it).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${1:-/tmp/lfm-fleets}
scrapes=${2:-100}
shift $(( $# > 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
mkdir -p "$work"
log="$work/raw.txt"
: >"$log"
load() { cut -d' ' -f1-3 /proc/loadavg; }
say() { echo "$*" | tee -a "$log" >&2; }
bench() { dotnet run -c Release --no-build --project bench/LogFlushMonitor.Benchmarks -- "$@"; }

say "== builds ($(date -u +%FT%TZ), load $(load), $(git rev-parse --short HEAD))"
dotnet build -c Release bench/LogFlushMonitor.Benchmarks >/dev/null
if [ "${PUBLISH:-1}" = 1 ] || [ ! -x "$work/aot/logflushmonitor" ]; then
  rm -rf "$work/aot"
  dotnet publish src/LogFlushMonitor -c Release -r linux-x64 -p:PublishAot=true -o "$work/aot" >/dev/null
fi

# 30 x 100 is 3,000 databases: past the default Exporters:CardinalityLimit (2,000 series per metric) every per-database
# metric overflows (the run shows it, the service logs it and counts it); measured with the limit raised to 4,000.
for entry in ${FLEETS:-1x100 10x100 1x1000 30x100:4000}; do
  fleet=${entry%%:*}
  limit=${entry#*:}
  [ "$limit" = "$entry" ] && limit=""
  instances=${fleet%x*}
  databases=${fleet#*x}
  file="$work/fleet-$fleet.ndjson"
  [ -f "$file" ] || bench make-fleet --instances "$instances" --databases "$databases" --out "$file" >&2
  say "== $fleet, $scrapes gzip scrapes${limit:+, Exporters:CardinalityLimit=$limit} (load $(load))"
  bench scrape-rss --fleet "$file" --scrapes "$scrapes" --instances "$instances" --databases "$databases" \
    --service "$work/aot/logflushmonitor" -- ${limit:+"--Exporters:CardinalityLimit=$limit"} "$@" 2>&1 | sed "s/^/[$fleet] /" | tee -a "$log" >&2
  say "   done (load $(load))"
done
say "== end ($(date -u +%FT%TZ))"
