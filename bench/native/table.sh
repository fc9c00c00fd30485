#!/usr/bin/env bash
# Issue 11 item 4: one table, measured in one run on this machine, of the JIT build against the NativeAOT build of
# the working tree (and of the stand-alone logflushmonitor-analyze for the analyze rows): published size, start to
# first /metrics, idle resident set, resident set of a 10 x 100 fleet
# over 1,000 scrapes, `analyze` of 200 MB and 1 GB against `cat` and `cksum` on 1 and 2 cores, and the decoder
# against its floor (BenchmarkDotNet, in process: JIT only). Prints the Markdown table, with the load average
# before and after each row, and writes it to <work>/table.md. Takes about 15 minutes on 2 cores.
# Usage: bench/native/table.sh [work directory, default /tmp/lfm-native-table]
# Needs hyperfine, taskset, curl and python3 (apt-get install -y hyperfine util-linux curl python3).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${1:-/tmp/lfm-native-table}
mkdir -p "$work"
log="$work/raw.txt"
: >"$log"
load() { cut -d' ' -f1-3 /proc/loadavg; }
say() { echo "$*" | tee -a "$log" >&2; }
bench() { dotnet run -c Release --no-build --project bench/LogFlushMonitor.Benchmarks -- "$@"; }

say "== builds ($(date -u +%FT%TZ), load $(load))"
dotnet build -c Release bench/LogFlushMonitor.Benchmarks >/dev/null
rm -rf "$work/jit" "$work/aot" "$work/tool"
dotnet publish src/LogFlushMonitor -c Release -o "$work/jit" >/dev/null
dotnet publish src/LogFlushMonitor -c Release -r linux-x64 -p:PublishAot=true -o "$work/aot" >/dev/null
dotnet publish src/LogFlushMonitor.AnalyzeTool -c Release -r linux-x64 -p:PublishAot=true -o "$work/tool" >/dev/null
[ -f "$work/fleet.ndjson" ] || bench make-fleet --instances 10 --databases 100 --out "$work/fleet.ndjson" >&2
[ -f "$work/x200.xel" ] || bench make-xel --size 200MB --out "$work/x200.xel" >&2
[ -f "$work/x1g.xel" ] || bench make-xel --size 1GB --out "$work/x1g.xel" >&2
# The JIT build runs through its apphost (as `dotnet logflushmonitor.dll` would, the same runtime).
jit="$work/jit/logflushmonitor"
aot="$work/aot/logflushmonitor"
tool="$work/tool/logflushmonitor-analyze"

for build in jit aot; do
  say "== start-up and idle, $build (load $(load))"
  PUBLISH=0 IDLE=30 bash bench/startup/measure.sh 11 "$work/$build" 2>&1 | tee -a "$log" | tail -3 >&2
  say "== 10 x 100 scrapes, $build (load $(load))"
  service=$work/$build/logflushmonitor
  [ "$build" = jit ] && service=$work/jit/logflushmonitor.dll
  bench scrape-rss --fleet "$work/fleet.ndjson" --scrapes 1000 --service "$service" 2>&1 | sed "s/^/[$build scrape] /" | tee -a "$log" | tail -6 >&2
done

for input in x200 x1g; do
  # A fresh copy, so its pages are in the page cache as a file just written has them: how a file came into the cache
  # changes how fast every reader copies it out (cat of the same 200 MB took 42.6 ms after it had been evicted and
  # read back, 18.7 ms as a fresh copy), and `cat` is the yardstick.
  file="$work/$input.fresh.xel"
  cp "$work/$input.xel" "$file"
  sync
  cat "$file" >/dev/null
  for cpus in 0 0,1; do
    say "== analyze $input on cpus $cpus (load $(load))"
    hyperfine -N --warmup 1 --runs 7 --style none \
      -n cat "taskset -c $cpus cat $file" \
      -n cksum "taskset -c $cpus cksum $file" \
      -n jit "taskset -c $cpus $jit analyze $file --progress never" \
      -n aot "taskset -c $cpus $aot analyze $file --progress never" \
      -n tool "taskset -c $cpus $tool $file --progress never" \
      --export-json "$work/analyze-$input-$cpus.json" >/dev/null
    say "   done (load $(load))"
  done
  rm -f "$file"
done

say "== decoder vs floor, BenchmarkDotNet in process (load $(load))"
rm -rf "$work/bdn"
bench --filter '*XelReaderBenchmarks.Floor_LogFlushFile*' '*XelReaderBenchmarks.Decode_LogFlushFile_EveryField' '*XelReaderBenchmarks.Decode_LogFlushFile_ConsumerFields' \
  --inProcess --warmupCount 3 --iterationCount 10 --exporters csv --artifacts "$work/bdn" 2>&1 | tee -a "$log" | grep -E '^\|' >&2 || true
say "== end (load $(load))"

python3 - "$work" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" <<'PY' | tee "$work/table.md"
import csv, glob, json, os, re, statistics, sys
work, cores, cpu = sys.argv[1], sys.argv[2], sys.argv[3]
raw = open(os.path.join(work, "raw.txt")).read()
loads = [float(x) for x in re.findall(r"load (?:average )?([0-9.]+) [0-9.]+ [0-9.]+", raw)]
def section(name):
    m = re.search(r"== " + re.escape(name) + r".*?\n(.*?)(?=\n== |\Z)", raw, re.S)
    return m.group(1) if m else ""
def size(build):
    total = 0
    for root, _, files in os.walk(os.path.join(work, build)):
        for f in files:
            if not f.endswith((".dbg", ".pdb", ".xml")):
                total += os.path.getsize(os.path.join(root, f))
    return total / 1e6
rows = []
start, idle, scrape = {}, {}, {}
for b in ("jit", "aot"):
    s = section(f"start-up and idle, {b}")
    m = re.search(r"median ([0-9.]+) ms over \d+ runs \(min (\d+), max (\d+)\)", s)
    start[b] = f"{float(m.group(1)):,.0f} ms ({m.group(2)}-{m.group(3)})" if m else "?"
    m = re.search(r"VmRSS: ([0-9.]+)\s+RssAnon: ([0-9.]+)\s+RssFile: ([0-9.]+)", s)
    idle[b] = f"{m.group(1)} MB ({m.group(2)} anon / {m.group(3)} file)" if m else "?"
    s = section(f"10 x 100 scrapes, {b}")
    cells = {}
    for line in s.splitlines():
        m = re.match(r"\[\w+ scrape\] \| ([0-9,]+) \| ([0-9.]+) \| [0-9.]+ \| [0-9.]+ \| ([0-9.]+) \|", line)
        if m:
            cells[m.group(1)] = (m.group(2), m.group(3))
    scrape[b] = " / ".join(cells.get(k, ("?", "?"))[0] for k in ("10", "100", "500", "1,000")) + f" MB; peak {cells.get('1,000', ('?', '?'))[1]} MB"
rows.append(("published size (without .dbg/.pdb/.xml)", f"{size('jit'):.1f} MB (+ the ASP.NET Core runtime)", f"{size('aot'):.1f} MB", f"{size('tool'):.1f} MB", ""))
rows.append(("start to first /metrics, `run --simulate mixed` (median of 11; min-max)", start["jit"], start["aot"], "–", "< 300 ms"))
rows.append(("idle resident set, 30 s after start (VmRSS)", idle["jit"], idle["aot"], "–", "< 50 MB"))
rows.append(("10 × 100 fleet, VmRSS after 10 / 100 / 500 / 1,000 gzip scrapes", scrape["jit"], scrape["aot"], "–", "< 80 MB, flat"))
for input, label in (("x200", "200 MB"), ("x1g", "1 GB")):
    for cpus, n in (("0", 1), ("0,1", 2)):
        path = os.path.join(work, f"analyze-{input}-{cpus}.json")
        if not os.path.exists(path):
            continue
        res = {r["command"]: r for r in json.load(open(path))["results"]}
        mb = os.path.getsize(os.path.join(work, input + ".xel")) / 2**20
        cat = statistics.median(res["cat"]["times"]); ck = statistics.median(res["cksum"]["times"])
        def cell(name):
            t = statistics.median(res[name]["times"])
            return f"{t*1000:,.0f} ms, {mb/t:,.0f} MB/s = {cat/t*100:.1f} % of cat"
        rows.append((f"`analyze` {label}, {n} core{'s' if n > 1 else ''} (median of 7; cat {cat*1000:.0f} ms = {mb/cat:,.0f} MB/s, cksum {ck*1000:.0f} ms)", cell("jit"), cell("aot"), cell("tool") if "tool" in res else "–", "≥ 25 % of cat"))
bdn = glob.glob(os.path.join(work, "bdn", "results", "*-report.csv"))
if bdn:
    table = {r["Method"]: r for r in csv.DictReader(open(bdn[0]))}
    def ms(v): return float(v.replace(",", "").split()[0]) * (1000 if v.strip().endswith(" s") else 1 / 1000 if v.strip().endswith("μs") or v.strip().endswith("us") else 1)
    floor = ms(table["Floor_LogFlushFile"]["Mean"])
    for method, label in (("Decode_LogFlushFile_EveryField", "every field and action"), ("Decode_LogFlushFile_ConsumerFields", "the fields the log-flush mapper reads")):
        if method in table:
            t = ms(table[method]["Mean"])
            rows.append((f"decoder, {label}, vs its floor (200 MB, in process; floor {floor:.1f} ms)", f"{t:.1f} ms = {floor/t*100:.0f} % of the floor", "–", "–", "≥ 50 %" if "every" in label else ""))
print(f"Measured {os.popen('date -u +%F').read().strip()} on {cores} cores ({cpu}); load average (1 min) {min(loads):.2f}-{max(loads):.2f} during the run.\n")
print("| measurement | JIT | NativeAOT | NativeAOT `logflushmonitor-analyze` | goal |")
print("| --- | ---: | ---: | ---: | --- |")
for r in rows:
    print("| " + " | ".join(r) + " |")
PY
