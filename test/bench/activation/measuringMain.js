// Entry point of the extension copy the activation benchmark installs: it loads the real bundle
// and times its module load and activate() inside the extension host, then appends the numbers
// to the file named by DOCCHAT_BENCH_ACTIVATION_OUT.
const { appendFileSync } = require('node:fs');

const loadStarted = performance.now();
const extension = require('./extension.js');
const loadMs = performance.now() - loadStarted;

exports.activate = function activate(context) {
  const started = performance.now();
  const result = extension.activate(context);
  const activateMs = performance.now() - started;
  const report = (settledMs) =>
    appendFileSync(process.env.DOCCHAT_BENCH_ACTIVATION_OUT, `${JSON.stringify({ loadMs, activateMs, settledMs })}\n`);
  if (result && typeof result.then === 'function') {
    result.then(
      () => report(performance.now() - started),
      () => report(Number.NaN),
    );
  } else {
    report(activateMs);
  }
  return result;
};

exports.deactivate = function deactivate() {
  return extension.deactivate?.();
};
