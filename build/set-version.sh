#!/usr/bin/env bash
# Sets the version this source tree releases as, everywhere it is written (docs/install.md, "Making a release"):
#   build/set-version.sh 1.2.0
# Directory.Build.props (VersionPrefix), the Helm chart's appVersion (its default image tag), the image tag that
# docker-compose.yml and the Kustomize base pull by default, and the version of the docs the alerts' runbook links
# point to when Prometheus has no runbook_base_url (deploy/prometheus/alerts.yml, its tests and its two Kubernetes
# copies). ReleaseTests fails while they differ; the release workflow refuses a tag v1.2.0 (or v1.2.0-rc.1) unless the
# tree says 1.2.0.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: set-version.sh X.Y.Z" >&2; exit 2; }
version=$1
if ! [[ $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]]; then
  echo "set-version.sh: '$version' is not a version X.Y.Z (a pre-release is only a tag: v$version-rc.1)" >&2
  exit 2
fi
image=ghcr.io/logflushmonitor/logflushmonitor
sed -i -E "s|<VersionPrefix>[^<]*</VersionPrefix>|<VersionPrefix>$version</VersionPrefix>|" Directory.Build.props
sed -i -E "s|^appVersion: .*|appVersion: \"$version\"|" deploy/helm/logflushmonitor/Chart.yaml
sed -i -E "s|$image:[0-9]+\.[0-9]+\.[0-9]+|$image:$version|g" docker-compose.yml deploy/kubernetes/statefulset.yaml
rules=(deploy/prometheus/alerts.yml deploy/prometheus/alerts.test.yml deploy/helm/logflushmonitor/files/alerts.yml deploy/kubernetes/prometheusrule.yaml)
sed -i -E "s|(github\.com/logflushmonitor/logflushmonitor/blob/v)[0-9]+\.[0-9]+\.[0-9]+(/docs/alerts\.md)|\1$version\2|g" "${rules[@]}"
git --no-pager diff --stat -- Directory.Build.props deploy/helm/logflushmonitor/Chart.yaml docker-compose.yml deploy/kubernetes/statefulset.yaml "${rules[@]}" 2>/dev/null || true
