#!/bin/sh
# Copies into the chart the files it ships from elsewhere in the repository: Helm reads only files inside the chart.
# Run it after every change to deploy/prometheus/alerts.yml or deploy/grafana/logflushmonitor.json
# (tests/LogFlushMonitor.Tests/Deploy/HelmTests fails while a copy differs).
set -eu
here=$(dirname "$0")
cp "$here/../prometheus/alerts.yml" "$here/logflushmonitor/files/alerts.yml"
cp "$here/../grafana/logflushmonitor.json" "$here/logflushmonitor/files/logflushmonitor.json"
