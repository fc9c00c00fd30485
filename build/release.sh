#!/usr/bin/env bash
# Release builds (docs/install.md): for one version, everything a user downloads, each with its SHA-256.
#
#   build/release.sh VERSION [--only PARTS] [--out DIR]
#   build/release.sh --repo-version        prints the version this source tree releases as (Directory.Build.props)
#   build/release.sh --check-aot-warnings LOG   checks a service publish log as a release does (exit 1 on a warning
#                                          docs/aot.md does not explain)
#   build/release.sh --common-files DIR    writes into DIR only the files every archive carries beside the programs
#                                          (what the tests check the links of)
#
# PARTS, comma-separated (default: all four):
#   linux-x64, linux-arm64  NativeAOT logflushmonitor and logflushmonitor-analyze: logflushmonitor-VERSION-RID.tar.gz,
#                           and the binary laid out for Dockerfile.release in DIR/image/linux-amd64|arm64
#   win-x64                 the service, self-contained (JIT; the host needs no .NET): logflushmonitor-VERSION-win-x64.zip
#   tool                    the .NET tool package (dotnet tool install -g LogFlushMonitor): LogFlushMonitor.VERSION.nupkg
# Every archive holds one folder, logflushmonitor-VERSION-RID/, with the programs, appsettings.json (the defaults, read
# beside the executable), appsettings.example.json, README.md, LICENSE (MIT), CONTRIBUTING.md, SECURITY.md, docs/ (every
# page the README links, the runbooks of the alerts, the report image), deploy/ and SHA256SUMS over its own files. DIR
# (default artifacts/release/VERSION) gets SHA256SUMS over the archives and package; DIR/image (the context of
# Dockerfile.release) gets the binary per architecture and LICENSE and docs/ once.
#
# linux-arm64 on an x64 machine is cross-compiled (docs/install.md, "Building a release"): clang and the Debian/Ubuntu
# packages gcc-aarch64-linux-gnu and libc6-dev-arm64-cross must be there; the script says what is missing. On an arm64
# machine it is a native build.
#
# The programs' --version prints VERSION and COMMIT (default: git rev-parse HEAD). A publish that prints a trim or
# NativeAOT warning docs/aot.md does not explain fails the build.
set -euo pipefail
caller_dir=$PWD
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
}

repo_version() {
  sed -n 's:.*<VersionPrefix>\([^<]*\)</VersionPrefix>.*:\1:p' Directory.Build.props | head -1
}

fail() { echo "release.sh FAILED: $*" >&2; exit 1; }

# Package warnings explained in docs/aot.md ("Remaining package warnings"), matched by the package id: as a folder
# followed by its version folder in the package path (whatever the NuGet folder is called: ~/.nuget/packages, a
# NUGET_PACKAGES folder, a CI cache), or as the assembly the summary warning names (Assembly 'Dapper' produced ...).
# Any other trim/AOT warning of the service fails the release, and logflushmonitor-analyze may have none.
explained_ids='microsoft\.data\.sqlclient|microsoft\.data\.sqlclient\.internal\.logging|system\.configuration\.configurationmanager|dapper'
explained="[/\\]($explained_ids)[/\\][0-9][^/\\]*[/\\]|Assembly '($explained_ids)' produced"
check_aot_warnings() {
  local log=$1 allowed=$2
  grep -E ': warning [A-Z]+[0-9]+' "$log" | sed -E 's/ \[[^]]*\]$//' | sort -u >"$log.warnings" || true
  if [ "$allowed" = none ]; then
    if [ -s "$log.warnings" ]; then
      cat "$log.warnings"; fail "logflushmonitor-analyze has trim/AOT warnings (above); it must have none"
    fi
    return 0
  fi
  grep -viE "$explained" "$log.warnings" >"$log.unexplained" || true
  if [ -s "$log.unexplained" ]; then
    cat "$log.unexplained"; fail "trim/AOT warnings that docs/aot.md does not explain (above)"
  fi
  echo "   package warnings explained in docs/aot.md: $(wc -l <"$log.warnings")"
}

# What every archive carries besides the programs: the README and every page it links (docs/, with the report image),
# the licence, how to contribute and report a vulnerability, the example settings and deploy/. Every link of the
# README and of docs/ resolves inside the folder (ReleaseTests checks it through --common-files; .ci/release-smoke.sh
# checks it in the archive itself).
copy_common_files() {
  local dir=$1 file
  for file in README.md LICENSE CONTRIBUTING.md SECURITY.md; do
    [ -f "$file" ] || fail "$file is missing: every archive carries it"
    cp "$file" "$dir/"
  done
  cp deploy/appsettings.example.json "$dir/appsettings.example.json"
  cp -R docs "$dir/docs"
  cp -R deploy "$dir/deploy"
}

version=
only=linux-x64,linux-arm64,win-x64,tool
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --repo-version) repo_version; exit 0 ;;
    --check-aot-warnings)
      [ $# -ge 2 ] || { usage; exit 2; }
      log=$2; [[ $log = /* ]] || log=$caller_dir/$log
      check_aot_warnings "$log" explained; exit 0 ;;
    --common-files)
      [ $# -ge 2 ] || { usage; exit 2; }
      target=$2; [[ $target = /* ]] || target=$caller_dir/$target
      mkdir -p "$target"; copy_common_files "$target"; exit 0 ;;
    --only) [ $# -ge 2 ] || { usage; exit 2; }; only=$2; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --out) [ $# -ge 2 ] || { usage; exit 2; }; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "release.sh: unknown option $1" >&2; usage; exit 2 ;;
    *) [ -z "$version" ] || { echo "release.sh: one VERSION only (got '$version' and '$1')" >&2; exit 2; }; version=$1; shift ;;
  esac
done
[ -n "$version" ] || { usage; exit 2; }
# SemVer 2.0 without build metadata: NuGet and image tags take it as it is, and the tag v$VERSION names it.
if ! [[ $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$ ]]; then
  echo "release.sh: '$version' is not a version like 1.2.3 or 1.3.0-rc.1 (SemVer, no '+' build metadata)" >&2
  exit 2
fi

parts=()
IFS=, read -ra requested <<<"$only"
for part in "${requested[@]}"; do
  case "$part" in
    linux-x64|linux-arm64|win-x64|tool) parts+=("$part") ;;
    *) echo "release.sh: unknown part '$part' in --only (linux-x64, linux-arm64, win-x64, tool)" >&2; exit 2 ;;
  esac
done
[ ${#parts[@]} -gt 0 ] || { echo "release.sh: --only names no part" >&2; exit 2; }
wants() { local p; for p in "${parts[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
if ! [[ $commit =~ ^[0-9a-f]{7,40}$ ]]; then
  echo "release.sh: no commit: run it in a git checkout, or set COMMIT to the commit the sources are (got '$commit')" >&2
  exit 2
fi
if [ -z "${COMMIT:-}" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  echo "release.sh: WARNING: the working tree has uncommitted changes; the programs will say commit ${commit:0:7} but are not exactly it" >&2
fi
# Archive entries get the commit's time, so an archive's bytes depend on its files alone.
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct "$commit" 2>/dev/null || date +%s)}

out=${out:-artifacts/release/$version}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { echo "== release $version: $*"; }
elapsed() { local s=$(($(date +%s) - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# Release properties for every build: the version and commit --version prints (the SDK writes
# InformationalVersion = Version+SourceRevisionId), and paths in symbols made independent of this machine.
props=(-c Release "-p:Version=$version" "-p:SourceRevisionId=$commit" -p:ContinuousIntegrationBuild=true)

# `dotnet publish`/`pack` with its log in $work/$1.log, shown on failure.
dotnet_logged() {
  local name=$1; shift
  if ! dotnet "$@" >"$work/$name.log" 2>&1; then
    grep -E ': (error|warning) ' "$work/$name.log" | sed -E 's/ \[[^]]*\]$//' | sort -u | head -40 || true
    tail -20 "$work/$name.log"
    fail "dotnet $* (log above)"
  fi
}

# What a cross-compiled linux-arm64 NativeAOT link needs on an x64 Debian/Ubuntu machine (docs/install.md): clang
# driving the arm64 GNU linker against the arm64 C and GCC runtimes, and an objcopy that strips arm64 symbols. No zlib
# for arm64: the runtime pack links its own (UseSystemZlib is false by default), as it does for x64.
cross_arm64_missing() {
  local missing=()
  command -v clang >/dev/null 2>&1 || missing+=("clang (package clang)")
  command -v aarch64-linux-gnu-ld >/dev/null 2>&1 || missing+=("the arm64 linker (package binutils-aarch64-linux-gnu)")
  command -v llvm-objcopy >/dev/null 2>&1 || command -v aarch64-linux-gnu-objcopy >/dev/null 2>&1 \
    || missing+=("an objcopy for arm64 (package llvm or binutils-aarch64-linux-gnu)")
  [ -e /usr/aarch64-linux-gnu/lib/crt1.o ] || missing+=("the arm64 C runtime (package libc6-dev-arm64-cross)")
  compgen -G '/usr/lib/gcc-cross/aarch64-linux-gnu/*/crtbeginS.o' >/dev/null || missing+=("the arm64 GCC runtime (package gcc-aarch64-linux-gnu)")
  [ ${#missing[@]} -eq 0 ] || printf '%s\n' "${missing[@]}"
}

host_arch=$(uname -m)
if wants linux-arm64 && [ "$host_arch" = x86_64 ]; then
  lacking=$(cross_arm64_missing)
  if [ -n "$lacking" ]; then
    echo "release.sh: linux-arm64 is cross-compiled on this x64 machine, and these are missing:" >&2
    while IFS= read -r line; do echo "  $line" >&2; done <<<"$lacking"
    echo "Install them (docs/install.md, \"Building a release\"), build linux-arm64 on an arm64 machine, or leave it out: --only linux-x64,win-x64,tool" >&2
    exit 2
  fi
fi

# The files every archive carries beside the programs (copy_common_files), with SHA256SUMS over the whole folder.
add_common_files() {
  local dir=$1
  copy_common_files "$dir"
  (cd "$dir" && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum >"$work/SHA256SUMS")
  mv "$work/SHA256SUMS" "$dir/SHA256SUMS"
}

# tar.gz / zip of one folder, entries sorted, owned by root, stamped with the commit's time.
archive_tar() {
  (cd "$(dirname "$1")" && tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf - "$(basename "$1")" | gzip -n -9 >"$2")
}
archive_zip() {
  python3 - "$1" "$2" "$epoch" <<'PY'
import os, sys, time, zipfile
folder, target, epoch = sys.argv[1], sys.argv[2], int(sys.argv[3])
stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip dates start in 1980
base = os.path.dirname(folder)
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            info = zipfile.ZipInfo(os.path.relpath(path, base).replace(os.sep, "/"), stamp)
            info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                z.writestr(info, f.read(), compresslevel=9)
PY
}

artefacts=()
started=$(date +%s)
echo "release.sh: version $version, commit $commit, parts ${parts[*]}, into $out"

for rid in linux-x64 linux-arm64; do
  wants "$rid" || continue
  t=$(date +%s)
  name=logflushmonitor-$version-$rid
  step "$rid: NativeAOT publish of logflushmonitor"
  dotnet_logged "$rid-service" publish src/LogFlushMonitor -r "$rid" -p:PublishAot=true "${props[@]}" -o "$work/$rid/service"
  check_aot_warnings "$work/$rid-service.log" explained
  step "$rid: NativeAOT publish of logflushmonitor-analyze"
  dotnet_logged "$rid-analyze" publish src/LogFlushMonitor.AnalyzeTool -r "$rid" -p:PublishAot=true "${props[@]}" -o "$work/$rid/analyze"
  check_aot_warnings "$work/$rid-analyze.log" none
  # The archive: the native programs and the defaults beside them; symbols (.dbg), .pdb and XML docs stay out.
  dir=$work/archive/$name
  mkdir -p "$dir"
  install -m 0755 "$work/$rid/service/logflushmonitor" "$work/$rid/analyze/logflushmonitor-analyze" "$dir/"
  install -m 0644 "$work/$rid/service/appsettings.json" "$dir/"
  add_common_files "$dir"
  archive_tar "$dir" "$out/$name.tar.gz"
  artefacts+=("$name.tar.gz")
  # Dockerfile.release's context names the architecture as Docker's TARGETARCH does.
  arch=${rid#linux-}; [ "$arch" = x64 ] && arch=amd64
  rm -rf "$out/image/linux-$arch"
  mkdir -p "$out/image/linux-$arch"
  install -m 0755 "$dir/logflushmonitor" "$out/image/linux-$arch/"
  install -m 0644 "$dir/appsettings.json" "$out/image/linux-$arch/"
  # What the image carries beside the binary, the same for every architecture (Dockerfile.release).
  rm -rf "$out/image/docs"
  install -m 0644 LICENSE "$out/image/LICENSE"
  cp -R docs "$out/image/docs"
  # The newest glibc symbol version it asks for: the oldest glibc it runs on (the build machine's decides it).
  glibc=$(readelf --dyn-syms -W "$dir/logflushmonitor" 2>/dev/null | grep -oE 'GLIBC_[0-9.]+' | sort -Vu | tail -1 | sed 's/GLIBC_/glibc /' || true)
  echo "   $name.tar.gz: $(du -h "$out/$name.tar.gz" | cut -f1) (logflushmonitor $(du -h "$dir/logflushmonitor" | cut -f1), logflushmonitor-analyze $(du -h "$dir/logflushmonitor-analyze" | cut -f1); needs ${glibc:-an unknown glibc} or later) in $(elapsed "$t")"
done

if wants win-x64; then
  t=$(date +%s)
  name=logflushmonitor-$version-win-x64
  step "win-x64: self-contained publish of the service"
  dotnet_logged win-x64 publish src/LogFlushMonitor -r win-x64 --self-contained "${props[@]}" -o "$work/win-x64"
  [ -f "$work/win-x64/logflushmonitor.exe" ] || fail "the win-x64 publish wrote no logflushmonitor.exe"
  [ -f "$work/win-x64/coreclr.dll" ] || fail "the win-x64 publish is not self-contained (no coreclr.dll)"
  dir=$work/archive/$name
  mkdir -p "$dir"
  cp -R "$work/win-x64"/. "$dir"/
  find "$dir" \( -name '*.pdb' -o -name '*.xml' \) -delete
  add_common_files "$dir"
  archive_zip "$dir" "$out/$name.zip"
  artefacts+=("$name.zip")
  echo "   $name.zip: $(du -h "$out/$name.zip" | cut -f1) ($(du -sh "$dir" | cut -f1) unpacked) in $(elapsed "$t")"
fi

if wants tool; then
  t=$(date +%s)
  step "tool: the .NET tool package"
  dotnet_logged tool pack src/LogFlushMonitor "${props[@]}" -o "$work/tool"
  package=LogFlushMonitor.$version.nupkg
  [ -f "$work/tool/$package" ] || fail "dotnet pack wrote no $package ($(ls "$work/tool"))"
  cp "$work/tool/$package" "$out/"
  artefacts+=("$package")
  echo "   $package: $(du -h "$out/$package" | cut -f1) in $(elapsed "$t")"
fi

(cd "$out" && sha256sum "${artefacts[@]}" >SHA256SUMS)
echo "release.sh: done in $(elapsed "$started"): $out"
sed 's/^/   /' "$out/SHA256SUMS"
