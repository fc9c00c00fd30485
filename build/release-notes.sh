#!/usr/bin/env bash
# The GitHub release's notes for a version (the release workflow attaches the files of DIR to it):
#   build/release-notes.sh VERSION IMAGE DIR > notes.md
# DIR holds the downloads and their SHA256SUMS; IMAGE is the published image's name (build/image-tags.sh gives the tags).
# REPOSITORY_URL (default https://github.com/logflushmonitor/logflushmonitor) is where the notes link the docs of the tag.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 3 ] || { echo "usage: release-notes.sh VERSION IMAGE DIR" >&2; exit 2; }
version=$1
image=$2
dir=$3
repository=${REPOSITORY_URL:-https://github.com/logflushmonitor/logflushmonitor}
[ -f "$dir/SHA256SUMS" ] || { echo "release-notes.sh: $dir/SHA256SUMS is missing" >&2; exit 2; }

# The newest glibc symbol version a native program asks for: the oldest glibc it runs on.
glibc_of() {
  local archive=$1 folder
  folder=$(basename "$archive" .tar.gz)
  tar -xzOf "$archive" "$folder/logflushmonitor" >"$work/program"
  readelf --dyn-syms -W "$work/program" | grep -oE 'GLIBC_[0-9.]+' | sort -Vu | tail -1 | sed 's/GLIBC_/glibc /'
}

runtime_of() {
  case "$1" in
    *-linux-x64.tar.gz) echo "Linux x64, native (NativeAOT): no .NET needed; $(glibc_of "$dir/$1") or later, OpenSSL, ICU" ;;
    *-linux-arm64.tar.gz) echo "Linux Arm64, native (NativeAOT): no .NET needed; $(glibc_of "$dir/$1") or later, OpenSSL, ICU" ;;
    *-win-x64.zip) echo "Windows x64, self-contained: no .NET needed" ;;
    *.nupkg) echo ".NET tool: needs the .NET 10 runtime with ASP.NET Core (any .NET 10 SDK has it)" ;;
    *) echo "" ;;
  esac
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat <<EOF
LogFlushMonitor $version. Install and verify: [docs/install.md]($repository/blob/v$version/docs/install.md).

| download | for | size |
| --- | --- | --- |
EOF
while read -r _ file; do
  size=$(du -h "$dir/$file" | cut -f1)
  echo "| \`$file\` | $(runtime_of "$file") | $size |"
done <"$dir/SHA256SUMS"

cat <<EOF

Container image (linux/amd64 and linux/arm64; no .NET needed, runs as a non-root user):

\`\`\`
$(bash build/image-tags.sh "$version" "$image" | sed 's/^/docker pull /')
\`\`\`

.NET tool: \`dotnet tool install -g LogFlushMonitor --version $version --add-source <folder holding the .nupkg>\`

Checksums (\`sha256sum --check --ignore-missing SHA256SUMS\` in the folder of the downloads; each archive also holds a
SHA256SUMS of its own files):

\`\`\`
$(cat "$dir/SHA256SUMS")
\`\`\`
EOF
