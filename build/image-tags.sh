#!/usr/bin/env bash
# The tags of the published image for a version (docs/install.md, "Container image"), one per line:
#   build/image-tags.sh VERSION IMAGE      e.g. build/image-tags.sh 1.2.3 ghcr.io/logflushmonitor/logflushmonitor
# 1.2.3 gets IMAGE:1.2.3, IMAGE:1.2 and IMAGE:latest; a pre-release (1.3.0-rc.1) gets only its own tag, so neither
# 1.3 nor latest ever points at a release candidate.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: image-tags.sh VERSION IMAGE" >&2; exit 2; }
version=$1
image=$2
if ! [[ $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "image-tags.sh: '$version' is not a version like 1.2.3 or 1.3.0-rc.1" >&2
  exit 2
fi
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]} prerelease=${BASH_REMATCH[4]}
if ! [[ $image =~ ^[a-z0-9]+([._/-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*$ ]]; then
  echo "image-tags.sh: '$image' is not an image name (lower case, no tag)" >&2
  exit 2
fi
echo "$image:$version"
if [ -z "$prerelease" ]; then
  echo "$image:$major.$minor"
  echo "$image:latest"
fi
