#!/usr/bin/env bash
# Smoke tests of the NativeAOT build (docs/aot.md), run by .ci/run on the binaries of the linux-x64 release archive
# (build/release.sh, which fails on any trim/AOT warning that docs/aot.md does not explain). It runs the binary as a
# user would: `run --simulate` serves /metrics, `analyze` reads a real .xel file, the File sink writes, and `check`
# and `run` (live stream, every poller, histogram mode, clear text and TLS) work against the scripted SQL Server
# (tests/LogFlushMonitor.ScriptedServer). Exit 0 only when every step passed.
#   AOT_BINARY=path/to/logflushmonitor .ci/aot-smoke.sh   tests an existing native binary (and the
#     logflushmonitor-analyze beside it, or AOT_ANALYZE_BINARY); without it, build/release.sh builds the linux-x64
#     archive first and the binaries come from it;
#   SCRIPTED_SERVER=path/to/LogFlushMonitor.ScriptedServer.dll uses an existing build of the scripted server.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "AOT smoke FAILED: $*" >&2; exit 1; }
step() { echo "== aot-smoke: $*"; }

if [ -z "${AOT_BINARY:-}" ]; then
  version="$(bash build/release.sh --repo-version)-dev"
  step "build the linux-x64 release archive (build/release.sh $version --only linux-x64)"
  bash build/release.sh "$version" --only linux-x64 --out "$work/release" || fail "build/release.sh failed"
  tar -xzf "$work/release/logflushmonitor-$version-linux-x64.tar.gz" -C "$work"
  binary="$work/logflushmonitor-$version-linux-x64/logflushmonitor"
  analyzer="$work/logflushmonitor-$version-linux-x64/logflushmonitor-analyze"
else
  binary=$AOT_BINARY
  analyzer=${AOT_ANALYZE_BINARY:-$(dirname "$AOT_BINARY")/logflushmonitor-analyze}
fi
[ -x "$binary" ] || fail "$binary is not an executable"
[ "$(head -c 4 "$binary" | tail -c 3)" = "ELF" ] || fail "$binary is not a native ELF executable"

# Starts the binary in the background with its log in $work/$1.log and waits for "Serving metrics at <url>".
start_service() {
  local name=$1; shift
  "$binary" "$@" --urls http://127.0.0.1:0 >"$work/$name.log" 2>&1 &
  pids+=($!)
  local pid=$!
  for _ in $(seq 1 300); do
    url=$(grep -oE 'Serving metrics at http://127\.0\.0\.1:[0-9]+/metrics' "$work/$name.log" | head -1 | awk '{print $4}') || true
    [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$work/$name.log"; fail "$name exited before serving /metrics"; }
    sleep 0.2
  done
  cat "$work/$name.log"; fail "$name did not serve /metrics within 60 s"
}

# Scrapes $url until every pattern matches (up to $1 seconds); prints what is missing otherwise.
wait_for_metrics() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds)) missing
  while :; do
    curl -fsS "$url" >"$work/scrape.txt" 2>/dev/null || true
    missing=()
    for pattern in "$@"; do grep -qE "$pattern" "$work/scrape.txt" || missing+=("$pattern"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ $SECONDS -ge $deadline ] && { printf 'missing: %s\n' "${missing[@]}" >&2; return 1; }
    sleep 1
  done
}

stop_last() {
  local pid=${pids[-1]}
  kill -TERM "$pid"
  local code=0
  wait "$pid" || code=$?
  unset 'pids[-1]'
  return $code
}

step "run --simulate mixed serves /metrics; the File sink writes"
start_service simulate run --simulate mixed --Log:File="$work/file-sink/lfm-.log"
wait_for_metrics 60 '^sqlserver_log_flush_write_size_bytes_count\{' '^sqlserver_monitor_events_total' \
  || fail "run --simulate: /metrics lacks the simulated flushes"
curl -fsS "${url%/metrics}/healthz" >/dev/null || fail "/healthz did not answer 2xx"
stop_last || fail "run --simulate did not stop cleanly on SIGTERM"
grep -qs 'Serving metrics at' "$work"/file-sink/lfm-*.log || fail "Log:File wrote nothing (the File sink in the native build)"

step "analyze tests/testdata/xel/TestXel_0.xel (a real file: connection and batch events, no log flushes, so exit 3)"
code=0
"$binary" analyze tests/testdata/xel/TestXel_0.xel --format json >"$work/analyze.json" 2>"$work/analyze.err" || code=$?
[ "$code" -eq 3 ] || { cat "$work/analyze.err"; fail "analyze exited $code, expected 3 (read, but no log-flush events)"; }
python3 - "$work/analyze.json" <<'EOF' || fail "analyze --format json did not report the file's 149 events"
import json, sys
report = json.load(open(sys.argv[1]))
file = report["files"][0]
ok = report["exit_code"] == 3 and report["totals"]["events"] == 149 and file["status"] == "ok" \
    and file["other_events"].get("sqlserver.existing_connection") == 120
sys.exit(0 if ok else 1)
EOF

step "logflushmonitor-analyze gives analyze's report, errors and exit code (the real file, and a damaged copy of it)"
[ -x "$analyzer" ] || fail "$analyzer is not an executable"
[ "$(head -c 4 "$analyzer" | tail -c 3)" = "ELF" ] || fail "$analyzer is not a native ELF executable"
python3 - tests/testdata/xel/TestXel_0.xel "$work/damaged.xel" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
metadata_length = struct.unpack_from("<i", data, 0x200 + 0x10)[0]
struct.pack_into("<i", data, 0x200 + metadata_length + 0x10, 0x7FFF0000)  # the first event buffer's length
open(sys.argv[2], "wb").write(data)
PY
for input in tests/testdata/xel/TestXel_0.xel "$work/damaged.xel"; do
  for format in text json; do
    main_code=0; tool_code=0
    "$binary" analyze "$input" --format "$format" >"$work/main.out" 2>"$work/main.err" || main_code=$?
    "$analyzer" "$input" --format "$format" >"$work/tool.out" 2>"$work/tool.err" || tool_code=$?
    sed -i -E 's/read in [0-9.]+ s \([0-9.,]+ [KMG]B\/s\)//; s/"elapsed_seconds": [0-9.eE+-]+//' "$work/main.out" "$work/tool.out"
    [ "$main_code" -eq "$tool_code" ] || fail "logflushmonitor-analyze $input --format $format exited $tool_code, analyze $main_code"
    cmp -s "$work/main.out" "$work/tool.out" || { diff "$work/main.out" "$work/tool.out" | head; fail "logflushmonitor-analyze $input --format $format: another report"; }
    cmp -s "$work/main.err" "$work/tool.err" || { diff "$work/main.err" "$work/tool.err" | head; fail "logflushmonitor-analyze $input --format $format: other errors"; }
  done
  echo "   $input: exit $tool_code from both"
done
[ "$tool_code" -eq 4 ] || fail "the damaged copy exited $tool_code, expected 4"

step "a bad Serilog section fails at start, naming the key (exit 2)"
code=0
"$binary" run --simulate mixed --Serilog:WriteTo:0:Name=Seq >"$work/serilog.log" 2>&1 || code=$?
if [ "$code" -ne 2 ] || ! grep -q 'Serilog:WriteTo' "$work/serilog.log"; then
  cat "$work/serilog.log"; fail "Serilog:WriteTo gave exit $code, or a message that does not name it"
fi

# The scripted SQL Server, in clear text or TLS ($1 = NotSupported, Required or Strict).
start_sql() {
  local encryption=$1
  dotnet "$server_dll" --encryption "$encryption" --lifetime 300 --requests-out "$work/requests-$encryption.txt" >"$work/sql-$encryption.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do
    sql_port=$(grep -oE '^port=[0-9]+' "$work/sql-$encryption.out" | cut -d= -f2) || true
    [ -n "$sql_port" ] && return 0
    sleep 0.2
  done
  cat "$work/sql-$encryption.out"; fail "the scripted SQL Server did not start"
}

# A fresh password per run (the scripted server accepts any): no credential is written in the repository, and the
# check below that no log printed it looks for exactly this value.
smoke_password="lfm-$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"

if [ -n "${SCRIPTED_SERVER:-}" ]; then
  server_dll=$SCRIPTED_SERVER
else
  step "build the scripted SQL Server"
  dotnet build tests/LogFlushMonitor.ScriptedServer -c Release -o "$work/scripted" >"$work/scripted-build.log" 2>&1 \
    || { cat "$work/scripted-build.log"; fail "tests/LogFlushMonitor.ScriptedServer did not build"; }
  server_dll="$work/scripted/LogFlushMonitor.ScriptedServer.dll"
fi

for encryption in NotSupported Required; do
  start_sql "$encryption"
  encrypt=False; [ "$encryption" = Required ] && encrypt=Mandatory
  export SMOKE_SQL="Server=127.0.0.1,$sql_port;User ID=monitor;Password=$smoke_password;Encrypt=$encrypt;TrustServerCertificate=True;Pooling=False;Connect Timeout=10"
  instance=(--Sources:SqlServer:Instances:0:Name=smoke --Sources:SqlServer:Instances:0:ConnectionStringEnvironmentVariable=SMOKE_SQL)

  step "check against the scripted server (Encrypt=$encrypt)"
  "$binary" check "${instance[@]}" >"$work/check-$encryption.log" 2>&1 || { cat "$work/check-$encryption.log"; fail "check exited non-zero (Encrypt=$encrypt)"; }
  if [ "$encryption" = Required ]; then
    grep -qE '^ *encrypted: +yes' "$work/check-$encryption.log" || { cat "$work/check-$encryption.log"; fail "check did not report the encrypted connection"; }
  fi

  step "run: live stream and every poller (Encrypt=$encrypt)"
  start_service "stream-$encryption" run "${instance[@]}" --Sources:SqlServer:Instances:0:Mode=Stream \
    --Sources:SqlServer:Instances:0:SessionName=lfm_smoke --Sources:SqlServer:PollInterval=00:00:01
  wait_for_metrics 90 \
    'sqlserver_log_flush_write_size_bytes_count\{sqlserver_database_name="sales",sqlserver_instance_name="smoke"[^}]*\} 300' \
    'sqlserver_log_flushes_total\{sqlserver_database_name="sales",sqlserver_instance_name="smoke"[^}]*\} [1-9]' \
    'sqlserver_wait_tasks_total\{sqlserver_instance_name="smoke",wait_type="WRITELOG"' \
    'sqlserver_log_file_writes_total\{sqlserver_database_name="sales",sqlserver_instance_name="smoke"' \
    'sqlserver_instance_start_time_seconds\{sqlserver_instance_name="smoke"' \
    'sqlserver_monitor_up\{component="poller",sqlserver_instance_name="smoke"[^}]*\} 1' \
    'sqlserver_monitor_collection_mode\{mode="stream",sqlserver_instance_name="smoke"' \
    || { cat "$work/stream-$encryption.log"; fail "run (stream) against the scripted server: metrics missing"; }
  if grep -E '^sqlserver_monitor_up\{[^}]*\} 0' "$work/scrape.txt"; then
    cat "$work/stream-$encryption.log"; fail "a component is down (above)"
  fi
  stop_last || fail "run (stream) did not stop cleanly"

  step "run: histogram mode (Encrypt=$encrypt)"
  start_service "histogram-$encryption" run "${instance[@]}" --Sources:SqlServer:Instances:0:Mode=Histogram \
    --Sources:SqlServer:Instances:0:SessionName=lfm_smoke --Sources:SqlServer:PollInterval=00:00:01
  wait_for_metrics 90 \
    'sqlserver_monitor_collection_mode\{mode="histogram",sqlserver_instance_name="smoke"[^}]*\} 1' \
    'sqlserver_log_flush_write_size_bytes_count\{sqlserver_database_name="sales",sqlserver_instance_name="smoke"[^}]*\} [1-9]' \
    'sqlserver_monitor_up\{component="histogram",sqlserver_instance_name="smoke"[^}]*\} 1' \
    || { cat "$work/histogram-$encryption.log"; fail "run (histogram) against the scripted server: metrics missing"; }
  stop_last || fail "run (histogram) did not stop cleanly"

  stop_last || true
  for statement in dm_os_performance_counters dm_os_wait_stats dm_io_virtual_file_stats 'FROM sys.databases' \
                   sqlserver_start_time dropped_event_count fn_MSxe_read_event_stream dm_xe_session_targets; do
    grep -q "$statement" "$work/requests-$encryption.txt" || fail "no statement with '$statement' reached the scripted server"
  done
  grep -qF "$smoke_password" "$work"/stream-*.log "$work"/histogram-*.log "$work"/check-*.log \
    && fail "a log printed the connection string's password"
done

step "check over TDS 8 (Encrypt=Strict, the server's certificate checked against its public key)"
start_sql Strict
pem=$(grep -oE 'certificate=[^ ]+' "$work/sql-Strict.out" | cut -d= -f2)
export SMOKE_SQL="Server=127.0.0.1,$sql_port;User ID=monitor;Password=$smoke_password;Encrypt=Strict;ServerCertificate=$pem;Pooling=False;Connect Timeout=10"
"$binary" check --Sources:SqlServer:Instances:0:Name=smoke --Sources:SqlServer:Instances:0:ConnectionStringEnvironmentVariable=SMOKE_SQL \
  >"$work/check-Strict.log" 2>&1 || { cat "$work/check-Strict.log"; fail "check exited non-zero (Encrypt=Strict)"; }
grep -qE '^ *encrypted: +yes' "$work/check-Strict.log" || { cat "$work/check-Strict.log"; fail "check did not report the encrypted connection (Strict)"; }
stop_last || true

echo "AOT smoke passed: $binary"
