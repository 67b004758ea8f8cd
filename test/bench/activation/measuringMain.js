// Entry point of the extension copy the activation benchmark installs: it loads the real bundle
// and times its module load and activate() inside the extension host, then appends the numbers
// and the extension's id to the file named by DOCCHAT_BENCH_ACTIVATION_OUT (the floor extension
// installed beside DocChat is timed by a copy of this file too). With
// DOCCHAT_BENCH_ACTIVATION_PROFILE (a folder), the inspector's CPU profiler runs from before the
// `require` to the end of activate() and the profile is written there as
// activation-<time>.cpuprofile.
const { appendFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const profileDir = process.env.DOCCHAT_BENCH_ACTIVATION_PROFILE;
const profiler = profileDir ? startProfiler() : undefined;

// CPU time (the process's, user + system) beside the wall-clock time: on a loaded machine the
// latter also counts the time the thread waited for a core.
const cpuMs = (since) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};
const loadStarted = performance.now();
const loadCpu = process.cpuUsage();
const extension = require('./extension.js');
const loadMs = performance.now() - loadStarted;
const loadCpuMs = cpuMs(loadCpu);

/** The in-process inspector session answers synchronously, so the profile starts here. */
function startProfiler() {
  const session = new (require('node:inspector').Session)();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 50 });
  session.post('Profiler.start');
  return session;
}

function stopProfiler() {
  profiler.post('Profiler.stop', (error, result) => {
    if (!error) writeFileSync(path.join(profileDir, `activation-${Date.now()}.cpuprofile`), JSON.stringify(result.profile));
    profiler.disconnect();
  });
}

exports.activate = function activate(context) {
  const started = performance.now();
  const activateCpu = process.cpuUsage();
  const result = extension.activate(context);
  const activateMs = performance.now() - started;
  const activateCpuMs = cpuMs(activateCpu);
  if (profiler) stopProfiler();
  const report = (settledMs) =>
    appendFileSync(
      process.env.DOCCHAT_BENCH_ACTIVATION_OUT,
      `${JSON.stringify({ extension: context.extension?.id, loadMs, activateMs, settledMs, loadCpuMs, activateCpuMs })}\n`,
    );
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
