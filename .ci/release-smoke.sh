#!/usr/bin/env bash
# Smoke test of the release downloads as a user gets them (docs/install.md). .ci/run runs it on build/release.sh's
# output; the release workflow runs it on each architecture's runner before anything is published.
#   .ci/release-smoke.sh DIR VERSION [RID]
# DIR is build/release.sh's output folder; RID (default: this machine's, linux-x64 or linux-arm64) picks the archive.
#  1. Every file DIR/SHA256SUMS lists has that checksum.
#  2. logflushmonitor-VERSION-RID.tar.gz unpacks into an empty folder holding one folder with the programs, the
#     defaults, the example settings, README.md, LICENSE, CONTRIBUTING.md, SECURITY.md, docs/, deploy/ and SHA256SUMS,
#     whose checksums hold; every link of its README and docs/ resolves inside it, anchors included.
#  3. From that folder, with it as the whole PATH (no dotnet anywhere on it) and no DOTNET_* variable: both programs'
#     --version print VERSION and the commit (COMMIT, default git rev-parse HEAD); `run --simulate` serves /metrics and
#     the runbooks at /docs/alerts.md, and exits 0 on SIGTERM; `analyze` and `logflushmonitor-analyze` read the real .xel of tests/testdata (149 events,
#     exit 3: no log flushes in it); `check --help` answers.
#  4. If DIR holds LogFlushMonitor.VERSION.nupkg: it declares the MIT licence and carries LICENSE; `dotnet tool install` from DIR alone into an empty tool path (and an
#     empty NuGet cache, so no older package of the same version is taken), then --version and analyze from it.
# SMOKE_EMULATOR=qemu-aarch64 runs the programs through that emulator (its full path is taken from this PATH), to
# check a cross-compiled linux-arm64 archive on an x64 machine (Debian: qemu-user, and libicu72:arm64 for ICU).
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
dir=$(cd "$1" && pwd)
version=$2
case "${3:-$(uname -m)}" in
  x86_64|linux-x64) rid=linux-x64 ;;
  aarch64|arm64|linux-arm64) rid=linux-arm64 ;;
  *) echo "release-smoke: no Linux archive for '${3:-$(uname -m)}'" >&2; exit 2 ;;
esac
commit=${COMMIT:-$(git rev-parse HEAD)}
xel=$PWD/tests/testdata/xel/TestXel_0.xel

work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "release smoke FAILED: $*" >&2; exit 1; }
step() { echo "== release-smoke: $*"; }

step "checksums of $dir"
(cd "$dir" && sha256sum --check --strict --quiet SHA256SUMS) || fail "$dir/SHA256SUMS does not match the files"

name=logflushmonitor-$version-$rid
archive=$dir/$name.tar.gz
[ -f "$archive" ] || fail "$archive is missing"
step "unpack $name.tar.gz into an empty folder"
mkdir "$work/unpacked"
tar -xzf "$archive" -C "$work/unpacked"
[ "$(ls "$work/unpacked")" = "$name" ] || fail "the archive holds $(ls "$work/unpacked"), not the one folder $name"
bin=$work/unpacked/$name
for file in logflushmonitor logflushmonitor-analyze appsettings.json appsettings.example.json README.md SHA256SUMS \
            LICENSE CONTRIBUTING.md SECURITY.md docs/alerts.md docs/install.md docs/images/report.png \
            deploy/systemd/logflushmonitor.service deploy/windows/install.ps1 deploy/helm/logflushmonitor/Chart.yaml \
            deploy/prometheus/alerts.yml deploy/grafana/logflushmonitor.json; do
  [ -f "$bin/$file" ] || fail "the archive has no $file"
done
grep -q '^MIT License$' "$bin/LICENSE" || fail "the archive's LICENSE is not the MIT licence"
step "every link of the archive's README and docs resolves inside it"
# Relative links and images of README.md, CONTRIBUTING.md, SECURITY.md and docs/*.md: the file exists in the folder,
# and an #anchor is a heading of the page (GitHub's anchors: lower case, punctuation dropped, spaces as '-').
python3 - "$bin" <<'PY' || fail "links of the archive's Markdown do not resolve inside it (above)"
import os, re, sys, unicodedata
root = os.path.realpath(sys.argv[1])
def slug(text):
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text).replace('**', '').replace('`', '').lower()
    return ''.join('-' if c == ' ' else c for c in text
                   if c == ' ' or c in '-_' or unicodedata.category(c)[0] in 'LNM')
def anchors(path):
    found, seen, fenced = set(), {}, False
    for line in open(path, encoding='utf-8'):
        if re.match(r'^ *```', line):
            fenced = not fenced
        elif not fenced and (m := re.match(r'^#{1,6} +(.+?)\s*$', line)):
            s = slug(m.group(1))
            n = seen.get(s)
            seen[s] = 0 if n is None else n + 1
            found.add(s if n is None else f'{s}-{n + 1}')
    return found
pages = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md'] + ['docs/' + f for f in sorted(os.listdir(os.path.join(root, 'docs'))) if f.endswith('.md')]
bad = []
for page in pages:
    text = open(os.path.join(root, page), encoding='utf-8').read()
    text = re.sub(r'^ *```.*?^ *```[ \t]*$', '', text, flags=re.S | re.M)
    text = re.sub(r'`[^`\n]+`', '', text)
    for target in re.findall(r'!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^()\s]+)\)', text):
        if re.match(r'(https?|mailto):', target):
            continue
        path, _, anchor = target.partition('#')
        full = os.path.realpath(os.path.join(root, os.path.dirname(page), path)) if path else os.path.join(root, page)
        if not full.startswith(root + os.sep) or not os.path.exists(full):
            bad.append(f'{page}: {target} (no such file in the archive)')
        elif anchor and (not full.endswith('.md') or anchor not in anchors(full)):
            bad.append(f'{page}: {target} (no such heading)')
for b in bad:
    print(b)
print(f'{len(pages)} pages, {len(bad)} broken links')
sys.exit(1 if bad else 0)
PY
for program in logflushmonitor logflushmonitor-analyze; do
  [ -x "$bin/$program" ] || fail "$program is not executable"
  [ "$(head -c 4 "$bin/$program" | tail -c 3)" = ELF ] || fail "$program is not a native ELF executable"
done
(cd "$bin" && sha256sum --check --strict --quiet SHA256SUMS) || fail "the archive's SHA256SUMS does not match its files"
[ -z "$(find "$bin" -name '*.dbg' -o -name '*.pdb')" ] || fail "the archive carries symbol files"
# The image's context (Dockerfile.release) holds the very same binary.
arch=${rid#linux-}; [ "$arch" = x64 ] && arch=amd64
cmp -s "$dir/image/linux-$arch/logflushmonitor" "$bin/logflushmonitor" || fail "$dir/image/linux-$arch/logflushmonitor is not the archive's binary"
cmp -s "$dir/image/linux-$arch/appsettings.json" "$bin/appsettings.json" || fail "$dir/image/linux-$arch/appsettings.json is not the archive's"

# The unpacked folder is the whole PATH; HOME is an empty folder; nothing of .NET is in the environment.
home=$work/home
mkdir "$home"
(PATH=$bin; ! command -v dotnet >/dev/null) || fail "dotnet is on the test PATH"
# user_run PROGRAM ARGS...: the program by its name, found through that PATH (or through the emulator).
user_env=(env -i HOME="$home" LANG=C.UTF-8 PATH="$bin")
emulator=
if [ -n "${SMOKE_EMULATOR:-}" ]; then
  emulator=$(command -v "$SMOKE_EMULATOR") || fail "SMOKE_EMULATOR=$SMOKE_EMULATOR is not installed"
fi
user_run() {
  if [ -n "$emulator" ]; then
    local program=$1; shift
    "${user_env[@]}" "$emulator" "$bin/$program" "$@"
  else
    "${user_env[@]}" "$@"
  fi
}

step "--version of both programs"
expected="logflushmonitor $version (commit ${commit:0:7})"
[ "$(user_run logflushmonitor --version)" = "$expected" ] || fail "logflushmonitor --version printed '$(user_run logflushmonitor --version)', expected '$expected'"
[ "$(user_run logflushmonitor-analyze --version)" = "logflushmonitor-analyze $version (commit ${commit:0:7})" ] \
  || fail "logflushmonitor-analyze --version printed '$(user_run logflushmonitor-analyze --version)'"

step "run --simulate serves /metrics and stops with exit 0 on SIGTERM"
# Started directly, not through the function (which would run in a subshell that the signal would stop instead):
# env execs the program, so $! is the program itself.
if [ -n "$emulator" ]; then
  "${user_env[@]}" "$emulator" "$bin/logflushmonitor" run --simulate mixed --urls http://127.0.0.1:0 >"$work/run.log" 2>&1 &
else
  "${user_env[@]}" logflushmonitor run --simulate mixed --urls http://127.0.0.1:0 >"$work/run.log" 2>&1 &
fi
pid=$!
url=
for _ in $(seq 1 300); do
  url=$(grep -oE 'Serving metrics at http://127\.0\.0\.1:[0-9]+/metrics' "$work/run.log" | head -1 | awk '{print $4}') || true
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/run.log"; fail "run --simulate exited before serving /metrics"; }
  sleep 0.2
done
[ -n "$url" ] || { cat "$work/run.log"; fail "run --simulate did not serve /metrics within 60 s"; }
scraped=
for _ in $(seq 1 60); do
  curl -fsS "$url" >"$work/scrape.txt" 2>/dev/null || true
  if grep -qE '^sqlserver_log_flush_write_size_bytes_count\{' "$work/scrape.txt"; then scraped=yes; break; fi
  sleep 1
done
[ -n "$scraped" ] || { cat "$work/run.log"; fail "/metrics never showed the simulated log flushes"; }
# The runbooks of this version, served by the binary itself (what the alerts' runbook_url opens).
curl -fsS "${url%/metrics}/docs/alerts.md" >"$work/alerts.html" || fail "the binary does not serve /docs/alerts.md"
grep -q 'id="sqlserverwritelogspike"' "$work/alerts.html" || fail "/docs/alerts.md has no section sqlserverwritelogspike"
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
pid=
[ "$code" -eq 0 ] || { cat "$work/run.log"; fail "run --simulate exited $code on SIGTERM, expected 0"; }

# The real file of tests/testdata: 149 events (120 of them sqlserver.existing_connection), none a log flush: exit 3.
check_analysis() {
  python3 - "$1" <<'PY' || fail "$2: the report does not show the file's 149 events"
import json, sys
report = json.load(open(sys.argv[1]))
file = report["files"][0]
ok = report["exit_code"] == 3 and report["totals"]["events"] == 149 and file["status"] == "ok" \
    and file["other_events"].get("sqlserver.existing_connection") == 120
sys.exit(0 if ok else 1)
PY
}
cp "$xel" "$work/capture.xel"
for program in "logflushmonitor analyze" logflushmonitor-analyze; do
  step "$program of a real .xel file"
  code=0
  # shellcheck disable=SC2086 # the program's name and its verb are two words
  user_run $program "$work/capture.xel" --format json >"$work/analysis.json" 2>"$work/analysis.err" || code=$?
  [ "$code" -eq 3 ] || { cat "$work/analysis.err"; fail "$program exited $code, expected 3 (read, no log-flush events)"; }
  check_analysis "$work/analysis.json" "$program"
done

step "check --help"
user_run logflushmonitor check --help >"$work/check-help.txt" 2>&1 || { cat "$work/check-help.txt"; fail "check --help failed"; }
grep -q 'logflushmonitor check \[options\]' "$work/check-help.txt" || { cat "$work/check-help.txt"; fail "check --help printed no usage line"; }

package=$dir/LogFlushMonitor.$version.nupkg
if [ -f "$package" ]; then
  step "the tool package declares the MIT licence and carries LICENSE"
  python3 - "$package" <<'PY' || fail "LogFlushMonitor.$version.nupkg does not declare the MIT licence or lacks LICENSE"
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
nuspec = z.read(next(n for n in z.namelist() if n.endswith('.nuspec'))).decode('utf-8')
sys.exit(0 if re.search(r'<license type="expression">MIT</license>', nuspec) and 'LICENSE' in z.namelist() else 1)
PY
  step "dotnet tool install of LogFlushMonitor $version from $dir"
  # Only the release folder as a package source, and an empty package cache.
  printf '<?xml version="1.0" encoding="utf-8"?>\n<configuration><packageSources><clear /></packageSources></configuration>\n' >"$work/nuget.config"
  NUGET_PACKAGES=$work/nuget-packages DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 \
    dotnet tool install LogFlushMonitor --version "$version" --tool-path "$work/tools" --configfile "$work/nuget.config" --add-source "$dir" \
    >"$work/tool-install.log" 2>&1 || { cat "$work/tool-install.log"; fail "dotnet tool install failed"; }
  [ -x "$work/tools/logflushmonitor" ] || fail "the tool installed no logflushmonitor command"
  [ "$("$work/tools/logflushmonitor" --version)" = "$expected" ] || fail "the tool's --version printed '$("$work/tools/logflushmonitor" --version)'"
  code=0
  "$work/tools/logflushmonitor" analyze "$work/capture.xel" --format json >"$work/analysis.json" 2>"$work/analysis.err" || code=$?
  [ "$code" -eq 3 ] || { cat "$work/analysis.err"; fail "the tool's analyze exited $code, expected 3"; }
  check_analysis "$work/analysis.json" "the tool's analyze"
fi

echo "release smoke passed: $name$([ -f "$package" ] && echo " and LogFlushMonitor.$version.nupkg")"
