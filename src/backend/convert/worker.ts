/** Entry of a conversion worker thread (bundled as dist/convert-worker.js); see serve.ts. */
import { parentPort } from 'node:worker_threads';
import { serveConversions } from './serve';

export type { WorkerReply } from './serve';

if (parentPort) serveConversions(parentPort);
