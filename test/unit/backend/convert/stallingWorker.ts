/**
 * A conversion worker for tests: files whose name starts with "stalled" report that they read the
 * pictures on page 2 and then wait forever at 0% CPU (as a PDF.js callback that never comes did);
 * every other file converts as in the real worker.
 */
import { parentPort } from 'node:worker_threads';
import { progress } from '../../../../src/backend/convert/context';
import { runConversion } from '../../../../src/backend/convert/job';
import { serveConversions } from '../../../../src/backend/convert/serve';

serveConversions(parentPort!, (job) => {
  if (!job.filename.startsWith('stalled')) return runConversion(job);
  progress({ filename: job.filename, archiveDepth: 0 }, 'reading the pictures on page 2');
  return new Promise(() => undefined);
});
