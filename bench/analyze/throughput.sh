#!/usr/bin/env bash
# Whole-process throughput of `analyze` against cat and cksum of the same (cached) file, on 1 and 2 cores.
# Usage: bench/analyze/throughput.sh <file-or-folder> [runs]
#   JIT:  LFM_JIT="dotnet src/LogFlushMonitor/bin/Release/net10.0/logflushmonitor.dll"  (dotnet build -c Release first)
#   AOT:  LFM_AOT=/tmp/aot-analyze/logflushmonitor  (dotnet publish src/LogFlushMonitor -c Release -r linux-x64 -p:PublishAot=true -o /tmp/aot-analyze)
# Prints the load average before and after, and hyperfine's table (mean, min, max) per core set.
set -euo pipefail
input=${1:?file or folder}
runs=${2:-5}
jit=${LFM_JIT:-dotnet src/LogFlushMonitor/bin/Release/net10.0/logflushmonitor.dll}
aot=${LFM_AOT:-/tmp/aot-analyze/logflushmonitor}
if [[ -d $input ]]; then files=("$input"/*.xel); else files=("$input"); fi
bytes=$(cat "${files[@]}" | wc -c)
cat "${files[@]}" > /dev/null # into the page cache
echo "input: $input, $bytes bytes in ${#files[@]} file(s); $(uptime)"
for cpus in 0 0,1; do
  echo "== taskset -c $cpus"
  hyperfine -N --warmup 1 --runs "$runs" --style basic \
    -n cat "taskset -c $cpus cat ${files[*]}" \
    -n cksum "taskset -c $cpus cksum ${files[*]}" \
    -n "jit" "taskset -c $cpus $jit analyze $input --progress never" \
    -n "aot" "taskset -c $cpus $aot analyze $input --progress never" \
    -n "aot --threads 1" "taskset -c $cpus $aot analyze $input --progress never --threads 1" \
    --export-json "/tmp/analyze-throughput-$(basename "$input")-$cpus.json" | grep -E "^(Benchmark|  Time|  Range)"
done
uptime
# MB/s = bytes / 2^20 / seconds; the JSON exports hold every run.
for f in /tmp/analyze-throughput-"$(basename "$input")"-*.json; do
  python3 - "$f" "$bytes" <<'PY'
import json, sys, statistics
d = json.load(open(sys.argv[1])); b = int(sys.argv[2])
cat = min(next(r for r in d["results"] if r["command"] == "cat")["times"])
catcpu = next(r["user"] + r["system"] for r in d["results"] if r["command"] == "cat")
print(sys.argv[1])
for r in d["results"]:
    best, med, cpu = min(r["times"]), statistics.median(r["times"]), r["user"] + r["system"]
    print(f'  {r["command"]:16} wall best {best:7.3f} s ({b/2**20/best:7.1f} MB/s, {cat/best*100:5.1f} % of cat), median {med:7.3f} s ({b/2**20/med:7.1f} MB/s);'
          f' CPU (user+sys, mean) {cpu:6.3f} s ({catcpu/cpu*100:5.1f} % of cat)')
PY
done
