/**
 * Entry of the OCR engine's thread (bundled as dist/ocr/worker.js): tesseract.js's own worker
 * script, with Tesseract's WebAssembly memory capped and measured. WebAssembly memory lives
 * outside any V8 heap limit, so the conversion worker's `resourceLimits` do not bound it; here
 * every growth of the engine's memory past the cap (OCR_MEMORY_ENV, in bytes) is refused, as
 * the engine's own 2 GiB maximum would be (its allocation fails and the recognition stops), and
 * after each job the thread reports the memory's size and whether a growth was refused, just
 * before the job's answer, as `{ ocrMemory: OcrMemoryReport }`. When the engine cannot start
 * (at its cap, for one), the thread reports and ends, which ends the start in ocr.ts.
 */
import { parentPort } from 'node:worker_threads';
import { OCR_MEMORY_ENV, type OcrMemoryReport } from './ocrMemory';

const WASM_PAGE = 65536;

const cap = Number(process.env[OCR_MEMORY_ENV]) || Infinity;
/** The memories of the modules instantiated in this thread: Tesseract's (and any small helper module's). */
const memories = new Set<WebAssembly.Memory>();
let refused = false;

function total(): number {
  let bytes = 0;
  for (const memory of memories) bytes += memory.buffer.byteLength;
  return bytes;
}

const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, delta: number): number {
  if (total() + delta * WASM_PAGE > cap) {
    refused = true;
    throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
  }
  return grow.call(this, delta);
};

// Emscripten creates the engine's memory inside the module: it is one of the instance's exports.
const instantiate = WebAssembly.instantiate as (...args: unknown[]) => Promise<unknown>;
(WebAssembly as { instantiate: unknown }).instantiate = async (...args: unknown[]) => {
  const result = (await instantiate(...args)) as { instance?: WebAssembly.Instance } & WebAssembly.Instance;
  for (const value of Object.values((result.instance ?? result).exports)) {
    if (value instanceof WebAssembly.Memory) memories.add(value);
  }
  return result;
};

const port = parentPort!;
const post = port.postMessage.bind(port);
function report(): void {
  const memoryReport: OcrMemoryReport = { bytes: total(), refused };
  post({ ocrMemory: memoryReport });
}

/** Jobs that start the engine: tesseract.js waits forever when one of them fails, so the thread ends. */
const STARTING = new Set(['load', 'loadLanguage', 'initialize']);

port.postMessage = (message: { status?: string; action?: string }, transfer?: readonly Transferable[]) => {
  const answer = message?.status === 'resolve' || message?.status === 'reject';
  if (answer) report();
  post(message, transfer as never);
  if (message?.status === 'reject' && STARTING.has(message.action ?? '')) process.exit(1);
};

// An engine that failed outside a job (its start, e.g. refused memory while loading) ends the thread.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, () => {
    report();
    process.exit(1);
  });
}

// What the engine prints once it is past its cap ("pix_malloc fail", "Aborted()"): the conversion's note says why.
const error = console.error.bind(console);
console.error = (...args: unknown[]) => {
  if (!refused) error(...args);
};

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the hooks above are in place
require('tesseract.js/src/worker-script/node/index.js');
