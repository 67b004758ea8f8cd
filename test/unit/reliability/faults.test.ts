/**
 * The fault matrix: every client operation of both services against every fault a network or a
 * misbehaving service produces. Each case must end with the right error class and a readable
 * message, be retried only when that is safe (requests are counted at the server), never leave an
 * unhandled rejection, and — for streams — keep the parts that arrived before the failure.
 * Single-operation behaviour (backoff delays, Retry-After parsing, same-origin redirects) is
 * covered in test/unit/api; this file covers the full operation × fault table.
 */
import * as assert from 'node:assert/strict';
import type { ChatStreamPart } from '../../../src/api/gateway/schemas';
import {
  type DocChatError,
  NetworkError,
  ProtocolError,
  RateLimitError,
  ServerError,
  StreamError,
  TimeoutError,
} from '../../../src/api/http/errors';
import { type FaultName, faultHandler } from '../../support/faults/faults';
import { type Clients, OPERATIONS, type OperationCase, STREAM_BODY, STREAM_WORDS } from '../../support/faults/operations';
import { seededRandom, testSeed } from '../../support/faults/seededRandom';
import { ScriptServer } from '../../support/servers/scriptServer';
import { API_KEY, documentsClient, gatewayClient, TOKEN } from '../api/helpers';

const MAX_RETRIES = 2;
const MAX_RESPONSE_BYTES = 64 * 1024;
const TIMEOUT_MS = 150;

interface Expectation {
  type: new (...args: any[]) => DocChatError;
  message: RegExp;
  /** Requests the server must see: the first attempt plus the retries that are safe. */
  requests: number;
  /** Streams: the words that must have been yielded before the error. */
  words?: string[];
}

const SEED = testSeed();

/** Offsets in STREAM_BODY: where the finish chunk starts (a cut before it leaves the answer incomplete). */
const streamBytes = Buffer.from(STREAM_BODY, 'utf8');
const finishAt = streamBytes.indexOf('"finish_reason":"stop"');
const eventEnds: number[] = [];
for (let at = streamBytes.indexOf('\n\n'); at >= 0; at = streamBytes.indexOf('\n\n', at + 1)) eventEnds.push(at + 2);

/** The words whose whole event lies before byte `cut` (event 0 is the role chunk). */
function wordsBefore(cut: number): string[] {
  const complete = eventEnds.filter((end) => end <= cut).length;
  return STREAM_WORDS.slice(0, Math.max(0, complete - 1));
}

function expectation(fault: FaultName, op: OperationCase, cut: number): Expectation | undefined {
  const retried = op.idempotent ? 1 + MAX_RETRIES : 1;
  switch (fault) {
    case '429 with Retry-After':
      // A 429 is a refusal before any work: retrying is safe even for a POST.
      return {
        type: RateLimitError,
        message: /^Too many requests to the (documents service|gateway)\. Try again in 2 s\.$/,
        requests: 1 + MAX_RETRIES,
      };
    case '429 without Retry-After':
      return { type: RateLimitError, message: /^Too many requests to the (documents service|gateway)\.$/, requests: 1 + MAX_RETRIES };
    case '500':
      return { type: ServerError, message: /^The (documents service|gateway) failed with a server error \(500\)\.$/, requests: retried };
    case '502':
      return {
        type: ServerError,
        message: /^The (documents service|gateway) is failing behind its gateway \(502 Bad Gateway\)\.$/,
        requests: retried,
      };
    case '503':
      return {
        type: ServerError,
        message: /^The (documents service|gateway) is unavailable \(503 Service Unavailable\)\.$/,
        requests: retried,
      };
    case '502 with an HTML page':
      // A load balancer's page is an outage, not "a proxy or sign-in page in the way"; safe requests retry it.
      return {
        type: ServerError,
        message:
          /^The (documents service|gateway) is failing behind its gateway \(502 Bad Gateway\) \(it sent an error page instead of API data\)\.$/,
        requests: retried,
      };
    case '500 with broken JSON':
      return {
        type: ServerError,
        message: /^The (documents service|gateway) failed with a server error \(500\) \(with a broken JSON body\)\.$/,
        requests: retried,
      };
    case 'error event in an unexpected shape':
      if (!op.stream) return undefined;
      return { type: StreamError, message: /^Upstream model overloaded\.$/, requests: 1 };
    case 'unknown events, then [DONE]':
      if (!op.stream) return undefined;
      return {
        type: ProtocolError,
        message: /ended the stream without an answer \(it sent 2 events DocChat does not understand\)\.$/,
        requests: 1,
      };
    case 'reset before headers':
      return {
        type: NetworkError,
        message: /^The connection to the (documents service|gateway) at http:\/\/127\.0\.0\.1:\d+ failed/,
        requests: retried,
      };
    case 'reset mid-body':
      // The headers said 200, so the server acted: nothing is repeated once the body broke.
      return op.stream
        ? { type: StreamError, message: /closed while the answer was streaming/, requests: 1, words: STREAM_WORDS.slice(0, 3) }
        : { type: NetworkError, message: /^The connection to the (documents service|gateway) at .* failed/, requests: 1 };
    case 'stream cut at a byte':
      if (!op.stream) return undefined;
      return { type: StreamError, message: /ended the stream before the answer was complete/, requests: 1, words: wordsBefore(cut) };
    case 'malformed JSON':
      if (op.name === 'retrieveFileContent') return undefined; // raw bytes: any content is valid
      return { type: ProtocolError, message: /sent malformed JSON\.$/, requests: 1 };
    case 'HTML page with 200':
      if (op.name === 'retrieveFileContent') return undefined;
      return { type: ProtocolError, message: /sent a web page instead of API data\.$/, requests: 1 };
    case 'slow headers':
      // One retry only here: undici's headers timer ticks coarsely, and one retry shows the rule.
      return { type: TimeoutError, message: /did not answer within \d+ s\.$/, requests: op.idempotent ? 2 : 1 };
    case 'oversized body':
      return {
        type: ProtocolError,
        message: /sent a response larger than 64 KiB; DocChat stopped reading it\.$/,
        requests: 1,
        ...(op.stream ? { words: STREAM_WORDS.slice(0, 3) } : {}),
      };
    case 'redirect to another origin':
      return {
        type: ProtocolError,
        message:
          /redirected to another address \(http:\/\/127\.0\.0\.1:\d+\)\. DocChat does not follow it, so your (token|API key) is not sent there\.$/,
        requests: 1,
      };
  }
}

const FAULTS: FaultName[] = [
  '429 with Retry-After',
  '429 without Retry-After',
  '500',
  '502',
  '503',
  '502 with an HTML page',
  '500 with broken JSON',
  'error event in an unexpected shape',
  'unknown events, then [DONE]',
  'reset before headers',
  'reset mid-body',
  'stream cut at a byte',
  'malformed JSON',
  'HTML page with 200',
  'slow headers',
  'oversized body',
  'redirect to another origin',
];

describe('fault matrix: every operation × every fault', function () {
  this.timeout(30_000);
  let server: ScriptServer;
  let other: ScriptServer;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  const random = seededRandom(SEED);

  before(async () => {
    console.log(`    fault seed ${SEED} (replay with DOCCHAT_TEST_SEED=${SEED})`);
    process.on('unhandledRejection', onUnhandled);
    server = await ScriptServer.start();
    other = await ScriptServer.start();
  });
  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server.close();
    await other.close();
  });

  function clients(fault?: FaultName): Clients {
    const transport = {
      maxRetries: fault === 'slow headers' ? 1 : MAX_RETRIES,
      headersTimeoutMs: TIMEOUT_MS,
      longHeadersTimeoutMs: TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    };
    return { documents: documentsClient(server.url, { transport }), gateway: gatewayClient(server.url, { transport, rateLimits: false }) };
  }

  it('covers every public operation of both clients', () => {
    const names = new Set(OPERATIONS.map((o) => o.name));
    const { documents, gateway } = clients();
    const skip = new Set([
      'constructor',
      'close',
      'list',
      'request',
      'spec',
      'stuck',
      'storeFilePath',
      'vectorStores',
      'files',
      'vectorStoreFiles',
      'waitUntilProcessed',
      'waitForResearch',
    ]);
    const publicMethods = [documents, gateway]
      .flatMap((c) => Object.getOwnPropertyNames(Object.getPrototypeOf(c)))
      .filter((m) => !skip.has(m) && !/^(open|stream(Parts)?$|single|models$|warn|inferenceSpec)/.test(m));
    for (const method of publicMethods) assert.ok(names.has(method), `${method} has no row in the fault table`);
  });

  for (const op of OPERATIONS) {
    describe(op.name, () => {
      for (const fault of FAULTS) {
        // Decided here so the test title shows the byte.
        const cut = 1 + Math.floor(random() * (finishAt - 1));
        const expected = expectation(fault, op, cut);
        if (!expected) continue;
        const title = fault === 'stream cut at a byte' ? `${fault} (byte ${cut} of ${streamBytes.length})` : fault;
        it(`${title} → ${expected.type.name}, ${expected.requests} request(s)`, async () => {
          server.reset();
          other.reset();
          other.on(op.method, op.path, (_r, res) => void res.end('{}'));
          server.on(op.method, op.path, faultHandler(fault, op, { otherOrigin: other.url, maxResponseBytes: MAX_RESPONSE_BYTES, cut }));
          const c = clients(fault);
          const parts: ChatStreamPart[] = [];
          let error: unknown;
          try {
            await op.run(c, parts);
          } catch (e) {
            error = e;
          } finally {
            await c.documents.close();
            await c.gateway.close();
          }
          assert.ok(
            error instanceof expected.type,
            `expected ${expected.type.name}, got ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`,
          );
          const message = (error as DocChatError).message;
          assert.match(message, expected.message);
          assert.doesNotMatch(message, /undefined|\[object|null|Error:|\n/, 'a sentence for people, not a dump');
          assert.ok(!message.includes(TOKEN) && !message.includes(API_KEY), 'no secret in the message');
          assert.equal(server.count(op.method, op.path), expected.requests, 'requests that reached the server');
          assert.equal(other.requests.length, 0, 'nothing reaches another origin');
          if (expected.words) {
            // Events that arrive in one read are handed out as one part: the text is what counts.
            assert.equal(
              parts.map((p) => p.content).join(''),
              expected.words.join(''),
              'the text of the events before the failure is kept, and nothing of a cut event',
            );
          }
          await new Promise((resolve) => setImmediate(resolve));
          assert.deepEqual(unhandled, [], 'no unhandled rejection');
        });
      }
    });
  }
});
