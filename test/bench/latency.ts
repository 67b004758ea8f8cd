/**
 * Benchmark 6, latency the user feels, in a real VS Code (code-server + headless Chromium driven
 * by the test harness) against the embedded backend with a scripted OpenAI-compatible upstream:
 * chat Enter → first answer text painted, search last keystroke → results shown, tree expand /
 * Load more → rows shown, and the chat panel opened on a 200-message conversation. Each is set
 * against its floor: the same UI operation done by a bare extension (test/bench/floor) installed
 * beside DocChat in the same VS Code, measured in turn in the same run, plus the raw round trip of
 * the server DocChat waits for; the difference is DocChat's own overhead. Both tested VS Code
 * versions (scripts/lib/vscode-versions.json) are measured one after the other in one run
 * (LATENCY_VSCODE=newest,oldest by default).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Frame } from 'playwright-core';
import { DocumentsClient } from '../../src/api/documents/client';
import { GatewayClient } from '../../src/api/gateway/client';
import { startBackend } from '../../src/backend';
import { DEFAULT_DEBOUNCE_MS } from '../../src/features/search/searchController';
import { launchVSCode, manifest, startBackendProcess, vscodeTarget, type VSCodeSession, type VSCodeTarget } from '../support/harness';
import { openExtensionHostInspector, startProfile, type ProfileSummaries, type ProfileSummary } from './latency/cpuProfile';
import {
  describeGoal,
  FELT_COLUMNS,
  feltFigures,
  feltRow,
  FLOOR_DIR,
  FLOOR_EXTENSION_ID,
  FRAME_MS,
  PANEL_GOAL_RATIO,
  webviewFrame,
  type FeltGoal,
  type FeltSamples,
} from './latency/floor';
import { armTimer, timerResult, visibleTreeLabels } from './latency/pageTimer';
import { FIRST_TOKEN_DELAY_MS, MODELS, SHORT_ANSWER, startUpstream, type Upstream } from './latency/upstream';
import { main, progress, type BenchResult, type Table } from './lib/report';
import { ms, percentile, ratio } from './lib/stats';
import { markdownAnswer } from './rendering/answer';

const ROUNDS = Number(process.env.LATENCY_ROUNDS ?? 25);
const BULK_RUNS = Number(process.env.LATENCY_BULK_RUNS ?? 3);
const SEARCH_RUNS = Number(process.env.LATENCY_SEARCH_RUNS ?? 12);
const TREE_RUNS = Number(process.env.LATENCY_TREE_RUNS ?? 6);
const PANEL_RUNS = Number(process.env.LATENCY_PANEL_RUNS ?? 5);
/** Smaller stores and fewer rounds are for trying the benchmark out; the figures use the defaults. */
const BIG_STORE_FILES = Number(process.env.LATENCY_BIG_STORE_FILES ?? 10_000);
const TARGETS = (process.env.LATENCY_VSCODE ?? 'newest,oldest')
  .split(',')
  .map((t) => t.trim())
  .filter(Boolean);
/** Which cases to measure (chat: first token, 100 KB answer and panel; tree; search); all by default. */
const CASES = new Set(
  (process.env.LATENCY_CASES ?? 'chat,tree,search')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean),
);
for (const name of CASES) {
  if (!['chat', 'tree', 'search'].includes(name)) throw new Error(`LATENCY_CASES: unknown case "${name}" (chat, tree, search)`);
}
const DOCCHAT_ID = `${manifest.publisher}.${manifest.name}`;
const PAGE_SIZE = 50;
const MAX_RESULTS = 3;
const TOKEN = 'bench-latency-token';
const API_KEY = 'bench-latency-key';
const QUESTION = 'How long are invoices kept?';
const NOTE_LABEL = '^note-\\d+\\.md$';

const RETENTION = [
  '# Retention policy',
  '',
  'Invoices are kept for ten years after the end of the fiscal year.',
  '',
  'Employment contracts are kept for six years after the employee leaves.',
  '',
  'Meeting notes are deleted after two years unless a project still needs them.',
].join('\n');

const p50 = (v: number[]) => percentile(v, 50);
const p95 = (v: number[]) => percentile(v, 95);

interface Seeded {
  demoId: string;
  bigId: string;
}

/** Seeds both stores through the backend's own service API, then closes it for the CLI. */
async function seed(dataDir: string): Promise<Seeded> {
  const backend = await startBackend({ dataDir, token: TOKEN, apiKey: API_KEY, rateLimits: false });
  const docs = backend.documents;
  const demo = await docs.createStore('handbook', {});
  const demoFiles: [string, string][] = [['retention.md', RETENTION]];
  for (let i = 0; i < SEARCH_RUNS; i++) {
    demoFiles.push([`round-${i}.md`, `# Round ${i}\n\nThe marker word quasar${i}x appears only in this file.\n`]);
  }
  for (const [name, text] of demoFiles) {
    const file = await docs.uploadFile(name, Buffer.from(text), 'assistants', {});
    await docs.attachFile(demo.id, file.id, {}, false);
  }
  const big = await docs.createStore('bench-big', {});
  const PARALLEL = 200;
  for (let i = 0; i < BIG_STORE_FILES; i += PARALLEL) {
    await Promise.all(
      Array.from({ length: Math.min(PARALLEL, BIG_STORE_FILES - i) }, async (_, j) => {
        const n = i + j;
        const file = await docs.uploadFile(`note-${n}.md`, Buffer.from(`# Note ${n}\n\nBenchmark file number ${n}.\n`), 'assistants', {});
        await docs.attachFile(big.id, file.id, {}, false);
      }),
    );
    if ((i + PARALLEL) % 2000 === 0) progress(`seeded ${i + PARALLEL} files`);
  }
  for (const id of [demo.id, big.id]) {
    for (const record of docs.listStoreFiles(id, { limit: 10_000, order: 'asc' }).data) await docs.whenProcessed(id, record.id);
  }
  await backend.close();
  return { demoId: demo.id, bigId: big.id };
}

interface Mark {
  name: string;
  startTime: number;
  detail: any;
}

const marks = (frame: Frame): Promise<Mark[]> =>
  frame.evaluate(() =>
    performance.getEntriesByType('mark').map((m) => ({ name: m.name, startTime: m.startTime, detail: (m as PerformanceMark).detail })),
  );
const clearMarks = (frame: Frame) => frame.evaluate(() => performance.clearMarks());
const frameOrigin = (frame: Frame) => frame.evaluate(() => performance.timeOrigin);

async function waitForMark(frame: Frame, name: string, timeoutMs = 60_000): Promise<Mark> {
  const handle = await frame.waitForFunction(
    (name) => {
      const found = performance.getEntriesByName(name, 'mark').at(-1) as PerformanceMark | undefined;
      return found ? { name: found.name, startTime: found.startTime, detail: found.detail } : undefined;
    },
    name,
    { timeout: timeoutMs, polling: 50 },
  );
  return (await handle.jsonValue()) as Mark;
}

/** Sends `question` with Enter and waits until its answer is complete; resolves to the marks. */
async function ask(frame: Frame, question: string): Promise<Mark[]> {
  const done = await frame.locator('article.assistant[data-status="done"]').count();
  await clearMarks(frame);
  const input = frame.locator('textarea.composer-input');
  await input.fill(question);
  await input.press('Enter');
  await frame.locator('article.assistant[data-status="done"]').nth(done).waitFor({ state: 'attached', timeout: 60_000 });
  await waitForMark(frame, 'docchat:answer-painted');
  return marks(frame);
}

function between(list: Mark[], from: string, to: string): number {
  const a = list.find((m) => m.name === from);
  const b = list.find((m) => m.name === to);
  if (!a || !b) throw new Error(`marks ${from} / ${to} missing: ${list.map((m) => m.name).join(', ')}`);
  return b.startTime - a.startTime;
}

/** Waits for the floor chat's answer to the question sent with Enter; resolves to send → first text painted. */
async function askFloor(frame: Frame, question: string): Promise<number> {
  await clearMarks(frame);
  const input = frame.locator('textarea.composer-input');
  await input.fill(question);
  await input.press('Enter');
  await waitForMark(frame, 'floor:first-text-painted');
  return between(await marks(frame), 'floor:send', 'floor:first-text-painted');
}

/** One VS Code version's samples: the felt-latency rows and the tables for information. */
interface VersionRun {
  target: VSCodeTarget;
  felt: { id: string; label: string; target: FeltGoal; samples: FeltSamples }[];
  tables: Table[];
  notes: string[];
  hostProfiles: { label: string; summary: ProfileSummary }[];
  pageProfiles: { label: string; summary: ProfileSummary }[];
  /** 1-minute load average when the version's measuring started and ended. */
  load: [number, number];
}

interface Shared {
  backendUrl: string;
  demoId: string;
  bigId: string;
  upstream: Upstream;
  documents: DocumentsClient;
  rawSearch(query: string, storeId?: string): Promise<number>;
  rawFirstToken(model: string): Promise<number>;
}

async function measureVersion(targetName: string, shared: Shared): Promise<VersionRun> {
  process.env.DOCCHAT_VSCODE = targetName;
  const target = vscodeTarget();
  const { upstream, documents, rawSearch, rawFirstToken, bigId } = shared;
  const version = `VS Code ${target.vscode}`;
  const run: VersionRun = {
    target,
    felt: [],
    tables: [],
    notes: [],
    hostProfiles: [],
    pageProfiles: [],
    load: [os.loadavg()[0]!, Number.NaN],
  };
  const floorMessagesDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-floor-'));
  const floorMessagesFile = path.join(floorMessagesDir, 'messages.html');
  writeFileSync(floorMessagesFile, '');
  let session: VSCodeSession | undefined;
  try {
    progress(`${version}: starting VS Code with DocChat and the floor extension`);
    session = await launchVSCode({
      name: `bench latency ${targetName}`,
      extraExtensions: [FLOOR_DIR],
      env: { FLOOR_DEBOUNCE_MS: String(DEFAULT_DEBOUNCE_MS), FLOOR_MESSAGES_FILE: floorMessagesFile },
      settings: {
        'docchat.documents.url': shared.backendUrl,
        'docchat.gateway.url': shared.backendUrl,
        'docchat.search.maxResults': MAX_RESULTS,
        'docchat.stores.pageSize': PAGE_SIZE,
      },
    });
    const page = session.page;
    const hostPort = process.env.LATENCY_CPU_PROFILE ? await openExtensionHostInspector(session.server.process.pid!) : undefined;
    const profiled = (summaries: ProfileSummaries, label: string) => {
      if (summaries.extensionHost) run.hostProfiles.push({ label, summary: summaries.extensionHost });
      if (summaries.page) run.pageProfiles.push({ label, summary: summaries.page });
    };
    const docchatFrame = () => webviewFrame(page, DOCCHAT_ID, '#app .composer-input');
    const floorFrame = () => webviewFrame(page, FLOOR_EXTENSION_ID, '#app .composer-input');
    await session.openView();
    // The stores tree lists the stores once the token is in; a palette still closing can swallow the first try.
    const handbookRow = session.viewPane('Vector Stores').locator('.monaco-list-row', { hasText: 'handbook' });
    for (let attempt = 1; ; attempt++) {
      await session.runCommand('DocChat: Set Documents Token');
      await page
        .locator('.quick-input-widget .quick-input-title', { hasText: 'Set Documents Token' })
        .waitFor({ state: 'visible', timeout: 15_000 });
      await session.answerQuickInput(TOKEN);
      try {
        await handbookRow.first().waitFor({ state: 'visible', timeout: 30_000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    await session.runCommand('DocChat: Set Gateway API Key');
    await page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Gateway API Key' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await session.answerQuickInput(API_KEY);

    if (CASES.has('chat')) {
      // ------------------------------------------------------------------ chat: first token
      progress(`${version}: chat Enter → first token painted, DocChat and the floor's echo`);
      await session.runCommand('DocChat: Open Chat');
      const frame = await docchatFrame();
      for (let attempt = 1; ; attempt++) {
        try {
          await frame.locator(`.model-select option[value="${MODELS.instant}"]`).waitFor({ state: 'attached', timeout: 30_000 });
          break;
        } catch (error) {
          // As with the token: the key may not have reached the first password box.
          if (attempt === 3) throw error;
          await session.runCommand('DocChat: Set Gateway API Key');
          await page
            .locator('.quick-input-widget .quick-input-title', { hasText: 'Gateway API Key' })
            .waitFor({ state: 'visible', timeout: 15_000 });
          await session.answerQuickInput(API_KEY);
          await frame.locator('.toolbar .refresh-models').click();
        }
      }
      await frame.locator('.store-select option', { hasText: 'handbook' }).waitFor({ state: 'attached', timeout: 60_000 });
      // The floor's panel opens beside DocChat's, so both are visible (a hidden webview gets no frames).
      await session.runCommand('Floor: Open Chat');
      const floorChat = await floorFrame();
      // Away from the editors' title bars: a hover left there covers the chat's toolbar.
      const parkMouse = () => page.mouse.move(170, 700);
      await parkMouse();
      type Variant = { id: string; label: string; model: string; grounded: boolean };
      const variants: Variant[] = [
        { id: 'instant-plain', label: 'no grounding, gateway answers at once', model: MODELS.instant, grounded: false },
        { id: 'instant-grounded', label: 'grounded, gateway answers at once', model: MODELS.instant, grounded: true },
        {
          id: 'delayed-plain',
          label: `no grounding, first token after ${FIRST_TOKEN_DELAY_MS} ms`,
          model: MODELS.delayed,
          grounded: false,
        },
        { id: 'delayed-grounded', label: `grounded, first token after ${FIRST_TOKEN_DELAY_MS} ms`, model: MODELS.delayed, grounded: true },
      ];
      const ui = new Map<string, number[]>(variants.map((v) => [v.id, []]));
      const echo = new Map<string, number[]>(variants.map((v) => [v.id, []]));
      const sources = new Map<string, number[]>(variants.map((v) => [v.id, []]));
      const raws = new Map<string, { search: number[]; ttft: number[]; sum: number[] }>(
        variants.map((v) => [v.id, { search: [], ttft: [], sum: [] }]),
      );
      const stopChatProfile = await startProfile(page, `${targetName}-chat-first-token`, hostPort);
      for (let round = 0; round < ROUNDS; round++) {
        for (const v of round % 2 ? [...variants].reverse() : variants) {
          const search = v.grounded ? await rawSearch(QUESTION) : 0;
          const ttft = await rawFirstToken(v.model);
          const r = raws.get(v.id)!;
          r.search.push(search);
          r.ttft.push(ttft);
          r.sum.push(search + ttft);
          await frame.locator('.model-select').selectOption(v.model);
          if (v.grounded) await frame.locator('.store-select').selectOption({ label: 'handbook' });
          else await frame.locator('.store-select').selectOption('');
          const list = await ask(frame, QUESTION);
          ui.get(v.id)!.push(between(list, 'docchat:send', 'docchat:first-text-painted'));
          if (v.grounded) sources.get(v.id)!.push(between(list, 'docchat:send', 'docchat:sources-painted'));
          echo.get(v.id)!.push(await askFloor(floorChat, QUESTION));
        }
        if (round % 5 === 4) progress(`${version}: chat round ${round + 1}/${ROUNDS}`);
      }
      profiled(await stopChatProfile(), 'chat Enter → first token, all cases');
      const conversationA = await frame.locator('.conversation-select').inputValue();
      await session.screenshot('chat first tokens beside the floor');
      for (const v of variants) {
        run.felt.push({
          id: `chat-${v.id}`,
          label: `chat Enter → first answer text painted: ${v.label}`,
          target: { kind: 'overhead', maxMs: FRAME_MS },
          samples: { docchat: ui.get(v.id)!, floor: echo.get(v.id)!, server: raws.get(v.id)!.sum },
        });
      }
      run.tables.push({
        caption: `${version}, chat, grounded: Enter → sources painted (ms, for information)`,
        columns: ['case', 'p50', 'p95', 'raw search p50', 'n'],
        rows: variants
          .filter((v) => v.grounded)
          .map((v) => [
            v.label,
            ms(p50(sources.get(v.id)!)),
            ms(p95(sources.get(v.id)!)),
            ms(p50(raws.get(v.id)!.search)),
            sources.get(v.id)!.length,
          ]),
      });
      // The floor's panel stays open beside DocChat's, idle, until the panel is measured.

      // ------------------------------------------------------------------ chat: 100 KB answer
      progress(`${version}: chat, 100 KB answer, last token → complete on screen`);
      await parkMouse();
      await frame.locator('.toolbar .new-chat').click();
      await frame.locator('.empty-state').waitFor({ state: 'visible', timeout: 30_000 });
      await frame.locator('.model-select').selectOption(MODELS.bulk);
      await frame.locator('.store-select').selectOption({ label: 'handbook' });
      const endToPaint: number[] = [];
      const lastTokenToPaint: number[] = [];
      const origin = await frameOrigin(frame);
      const stopBulkProfile = await startProfile(page, `${targetName}-chat-100kb-answer`, hostPort);
      for (let i = 0; i < BULK_RUNS; i++) {
        // The question the handbook covers: grounding answers "not covered" (no stream) to one it does not.
        const list = await ask(frame, QUESTION);
        endToPaint.push(between(list, 'docchat:stream-ended', 'docchat:answer-painted'));
        const painted = list.find((m) => m.name === 'docchat:answer-painted')!;
        lastTokenToPaint.push(origin + painted.startTime - upstream.lastBulkTokenAt);
      }
      profiled(await stopBulkProfile(), '100 KB answers');
      await session.screenshot('chat 100 KB answer');
      const conversationB = await frame.locator('.conversation-select').inputValue();
      run.tables.push({
        caption: `${version}, chat: a 100 KB answer (citations, code, tables) streamed in 1,000 chunks (ms, for information)`,
        columns: ['span', 'p50', 'p95', 'max', 'n'],
        rows: [
          [
            'upstream writes its last token → finished answer painted (wall clock across processes)',
            ms(p50(lastTokenToPaint)),
            ms(p95(lastTokenToPaint)),
            ms(Math.max(...lastTokenToPaint)),
            lastTokenToPaint.length,
          ],
          [
            'webview gets streamDone → finished answer painted',
            ms(p50(endToPaint)),
            ms(p95(endToPaint)),
            ms(Math.max(...endToPaint)),
            endToPaint.length,
          ],
        ],
      });

      // ------------------------------------------------------------------ chat panel: switch, open
      progress(`${version}: chat panel, switch conversations, open on conversation A beside the floor's static copy`);
      await parkMouse();
      await frame.locator('.toolbar .new-chat').click();
      await frame.locator('.empty-state').waitFor({ state: 'visible', timeout: 30_000 });
      await frame.locator('.model-select').selectOption(MODELS.instant);
      await frame.locator('.store-select').selectOption('');
      await ask(frame, 'Hello?');
      const conversationC = await frame.locator('.conversation-select').inputValue();
      const switchTo = new Map<string, number[]>([
        [conversationA, []],
        [conversationB, []],
        [conversationC, []],
      ]);
      const stopPanelProfile = await startProfile(page, `${targetName}-chat-panel-switch-open`, hostPort);
      for (let i = 0; i < PANEL_RUNS; i++) {
        for (const id of [conversationA, conversationC, conversationB, conversationC]) {
          await clearMarks(frame);
          await frame.locator('.conversation-select').selectOption(id);
          const painted = await waitForMark(frame, 'docchat:conversation-painted');
          const started = (await marks(frame)).find((m) => m.name === 'docchat:switch-conversation')!;
          switchTo.get(id)!.push(painted.startTime - started.startTime);
        }
      }
      await clearMarks(frame);
      await frame.locator('.conversation-select').selectOption(conversationA);
      const sizeA = Number((await waitForMark(frame, 'docchat:conversation-painted')).detail?.messages ?? 0);
      // The floor paints the same messages as DocChat shows them: its articles, once all are built.
      await frame.waitForFunction((n) => document.querySelectorAll('.messages > article').length >= n, sizeA, { timeout: 60_000 });
      const articles = await frame.locator('.messages > article').evaluateAll((list) => list.map((a) => a.outerHTML));
      writeFileSync(floorMessagesFile, articles.join('\n'));
      // Open: close the panel and open it again on conversation A (the one shown last); the floor's
      // panel opens on the same messages, run by run in turn.
      const open = { docchat: [] as number[], floor: [] as number[] };
      const openInWebview = { docchat: [] as number[], floor: [] as number[] };
      let floorShown = 0;
      const floorPaint: number[] = [];
      const scriptReceived: number[] = [];
      const documentParsed: number[] = [];
      for (let i = 0; i < PANEL_RUNS; i++) {
        for (const who of i % 2 ? (['floor', 'docchat'] as const) : (['docchat', 'floor'] as const)) {
          await session.runCommand('View: Close All Editors');
          await page
            .locator('iframe.webview')
            .first()
            .waitFor({ state: 'detached', timeout: 30_000 })
            .catch(() => undefined);
          await page.evaluate(() => {
            (window as any).__docchatOpenClick = undefined;
            window.addEventListener('pointerdown', (e) => ((window as any).__docchatOpenClick = performance.timeOrigin + e.timeStamp), {
              capture: true,
              once: true,
            });
          });
          await session.runCommand(who === 'docchat' ? 'DocChat: Open Chat' : 'Floor: Open Chat');
          const clickedAt = (await page.evaluate(() => (window as any).__docchatOpenClick)) as number;
          const opened = who === 'docchat' ? await docchatFrame() : await floorFrame();
          const painted = await waitForMark(opened, who === 'docchat' ? 'docchat:conversation-painted' : 'floor:conversation-painted');
          open[who].push((await frameOrigin(opened)) + painted.startTime - clickedAt);
          openInWebview[who].push(painted.startTime);
          if (who === 'floor') {
            floorShown = Number(painted.detail?.messages ?? 0);
            // The head's mark comes before the messages' HTML: from it on is parsing, layout and paint.
            floorPaint.push(painted.startTime - (await waitForMark(opened, 'floor:head')).startTime);
            if (i === 0) await session.screenshot('floor panel on the same messages');
          }
          if (who === 'docchat') {
            // Where the webview's part goes: its script received, its document parsed (n/a where the timeline lacks them).
            const steps = await opened.evaluate(() => {
              const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
              const script = resources.find((e) => /\/chat\.js(\?|$)/.test(e.name));
              const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
              return { script: script ? script.responseEnd : Number.NaN, parsed: nav ? nav.domContentLoadedEventEnd : Number.NaN };
            });
            scriptReceived.push(steps.script);
            documentParsed.push(steps.parsed);
          }
          if (who === 'docchat' && painted.detail?.conversationId !== conversationA) {
            run.notes.push(
              `${version}: run ${i + 1} of opening the panel showed another conversation (${painted.detail?.messages} messages).`,
            );
          }
        }
      }
      profiled(await stopPanelProfile(), 'panel switch and open');
      await session.screenshot('chat panel reopened');
      run.notes.push(
        `${version}: painting the ${floorShown} messages (parse, layout and paint, from the floor page's head script to the paint) takes the floor ${ms(p50(floorPaint))} ms p50 of its ${ms(p50(open.floor))} ms open; DocChat's open is ${ms(p50(open.docchat) - p50(open.floor))} ms over the floor's, ${ms(p50(open.docchat.map((t, k) => t - openInWebview.docchat[k]!)) - p50(open.floor.map((t, k) => t - openInWebview.floor[k]!)))} ms of it before its webview starts to navigate.`,
      );
      if (floorShown !== sizeA) run.notes.push(`${version}: the floor's panel painted ${floorShown} messages, DocChat's ${sizeA}.`);
      run.felt.push({
        id: 'panel-open',
        label: `chat panel: open (command clicked) → ${sizeA}-message conversation painted`,
        target: { kind: 'ratio', max: PANEL_GOAL_RATIO },
        samples: { docchat: open.docchat, floor: open.floor },
      });
      run.felt.push({
        id: 'panel-open-before-webview',
        label: '  of which: command clicked → webview navigation start',
        target: { kind: 'ratio', max: PANEL_GOAL_RATIO },
        samples: {
          docchat: open.docchat.map((t, k) => t - openInWebview.docchat[k]!),
          floor: open.floor.map((t, k) => t - openInWebview.floor[k]!),
        },
      });
      run.felt.push({
        id: 'panel-open-webview',
        label: `  of which: webview navigation start → ${sizeA} messages painted`,
        target: { kind: 'ratio', max: PANEL_GOAL_RATIO },
        samples: { docchat: openInWebview.docchat, floor: openInWebview.floor },
      });
      {
        const messages = (id: string) =>
          id === conversationA
            ? `${sizeA} messages`
            : id === conversationB
              ? `${BULK_RUNS * 2} messages, ${BULK_RUNS} × 100 KB answers`
              : '2 messages';
        run.tables.push({
          caption: `${version}, chat panel: switch conversations → conversation painted; the floor's parsing and painting of the messages (ms, for information)`,
          columns: ['step', 'p50', 'p95', 'max', 'n'],
          rows: [
            ...[conversationA, conversationB, conversationC].map((id) => {
              const v = switchTo.get(id)!;
              return [`switch to a conversation with ${messages(id)}`, ms(p50(v)), ms(p95(v)), ms(Math.max(...v)), v.length];
            }),
            ...(
              [
                ['DocChat panel open: webview navigation start → chat.js received', scriptReceived],
                ['DocChat panel open: webview navigation start → its document parsed (DOMContentLoaded end)', documentParsed],
              ] as const
            ).map(([label, v]) => [label, ms(p50(v)), ms(p95(v)), ms(Math.max(...v)), v.filter(Number.isFinite).length]),
            [
              `floor panel open: its head's script → ${floorShown} messages parsed, laid out and painted`,
              ms(p50(floorPaint)),
              ms(p95(floorPaint)),
              ms(Math.max(...floorPaint)),
              floorPaint.length,
            ],
          ],
        });
      }
      await session.runCommand('View: Close All Editors');
    }

    // ------------------------------------------------------------------ tree
    if (CASES.has('tree')) {
      progress(
        `${version}: tree, expand a ${BIG_STORE_FILES.toLocaleString('en')}-file store and Load more, DocChat and the floor in turn`,
      );
      const stopTreeProfile = await startProfile(page, `${targetName}-tree`, hostPort);
      const expand = { docchat: [] as number[], floor: [] as number[] };
      const more = { docchat: [] as number[], floor: [] as number[] };
      const rawFirst: number[] = [];
      const rawNext: number[] = [];
      const trees = {
        docchat: { container: 'DocChat', view: 'Vector Stores', store: 'bench-big', refresh: 'DocChat: Refresh Vector Stores' },
        floor: { container: 'Floor', view: 'Floor Stores', store: 'floor-big', refresh: 'Floor: Refresh Stores' },
      };
      for (let i = 0; i < TREE_RUNS; i++) {
        const first = await documents.listVectorStoreFiles(bigId, { limit: PAGE_SIZE });
        let t = performance.now();
        await documents.listVectorStoreFiles(bigId, { limit: PAGE_SIZE });
        rawFirst.push(performance.now() - t);
        t = performance.now();
        await documents.listVectorStoreFiles(bigId, { limit: PAGE_SIZE, after: first.data.at(-1)!.id });
        rawNext.push(performance.now() - t);
        for (const who of i % 2 ? (['floor', 'docchat'] as const) : (['docchat', 'floor'] as const)) {
          const tree = trees[who];
          await session.openView(tree.container);
          const pane = session.viewPane(tree.view);
          const storeRow = pane.locator('.monaco-list-row', {
            has: page.locator('.label-name', { hasText: new RegExp(`^${tree.store}$`) }),
          });
          await storeRow.first().waitFor({ state: 'visible', timeout: 30_000 });
          if ((await storeRow.first().getAttribute('aria-expanded')) === 'true') await storeRow.first().click();
          await session.runCommand(tree.refresh);
          await storeRow.first().waitFor({ state: 'visible', timeout: 30_000 });
          await armTimer(page, 'pointerdown', { kind: 'newTreeRow', pattern: NOTE_LABEL, known: [] });
          await storeRow.first().click();
          expand[who].push(await timerResult(page));
          // The list is virtual: scroll until the Load more row exists, then click it.
          const loadMore = pane.locator('.monaco-list-row', { hasText: 'Load more' });
          const box = await pane.boundingBox();
          await page.mouse.move(box!.x + box!.width / 2, box!.y + box!.height / 2);
          for (let k = 0; k < 40 && !(await loadMore.first().isVisible()); k++) await page.mouse.wheel(0, 1500);
          await loadMore.first().waitFor({ state: 'visible', timeout: 10_000 });
          const known = await visibleTreeLabels(page, NOTE_LABEL);
          await armTimer(page, 'pointerdown', { kind: 'newTreeRow', pattern: NOTE_LABEL, known });
          await loadMore.first().click();
          more[who].push(await timerResult(page));
          for (let k = 0; k < 40 && !(await storeRow.first().isVisible()); k++) await page.mouse.wheel(0, -3000);
          await storeRow.first().click(); // collapse
        }
      }
      profiled(await stopTreeProfile(), 'tree expand / Load more');
      await session.screenshot('floor tree after load more');
      await session.openView('DocChat');
      run.felt.push({
        id: 'tree-expand',
        label: `tree: expand a store of ${BIG_STORE_FILES.toLocaleString('en')} files → first ${PAGE_SIZE} rows visible`,
        target: { kind: 'overhead', maxMs: FRAME_MS },
        samples: { docchat: expand.docchat, floor: expand.floor, server: rawFirst },
      });
      run.felt.push({
        id: 'tree-load-more',
        label: `tree: Load more → next ${PAGE_SIZE} rows visible`,
        target: { kind: 'overhead', maxMs: FRAME_MS },
        samples: { docchat: more.docchat, floor: more.floor, server: rawNext },
      });
    }

    // ------------------------------------------------------------------ search
    if (CASES.has('search')) {
      progress(`${version}: search, last keystroke → results, DocChat then the floor`);
      const shown = { docchat: [] as number[], floor: [] as number[] };
      const raw: number[] = [];
      const widget = page.locator('.quick-input-widget');
      const input = widget.locator('input.input');
      const stopSearchProfile = await startProfile(page, `${targetName}-search`, hostPort);
      for (const who of ['docchat', 'floor'] as const) {
        if (who === 'docchat') {
          await session.runCommand('DocChat: Search Vector Store…');
          await session.answerQuickInput('handbook');
          await widget.locator('input.input[placeholder*="handbook"]').waitFor({ state: 'visible', timeout: 30_000 });
        } else {
          await session.runCommand('Floor: Search');
          await widget.locator('input.input[placeholder*="floor"]').waitFor({ state: 'visible', timeout: 30_000 });
        }
        for (let i = 0; i < SEARCH_RUNS; i++) {
          if (who === 'docchat') raw.push(await rawSearch(`quasar${i}x`));
          await input.fill(`quasar${i}`);
          await widget
            .locator('.monaco-list-row', { hasText: /No results|No passages|nothing/i })
            .first()
            .waitFor({ timeout: 30_000 })
            .catch(() => undefined);
          await armTimer(page, 'keydown', { kind: 'quickPickRow', text: `round-${i}.md` });
          await input.press('x');
          shown[who].push((await timerResult(page)) - DEFAULT_DEBOUNCE_MS);
        }
        await session.screenshot(`${who} search results`);
        await session.closeQuickInput();
      }
      profiled(await stopSearchProfile(), 'search');
      run.felt.push({
        id: 'search',
        label: `search: last keystroke → results shown, minus the ${DEFAULT_DEBOUNCE_MS} ms debounce`,
        target: { kind: 'overhead', maxMs: FRAME_MS },
        samples: { docchat: shown.docchat, floor: shown.floor, server: raw },
      });
    }

    const errors = session.consoleErrors.filter((e) => /docchat|webview|floor/i.test(e));
    if (errors.length) run.notes.push(`${version}: console errors: ${errors.slice(0, 3).join(' | ')}`);
  } finally {
    await session?.close();
    rmSync(floorMessagesDir, { recursive: true, force: true });
    run.load[1] = os.loadavg()[0]!;
  }
  return run;
}

const profileTable = (caption: string, profiles: { label: string; summary: ProfileSummary }[]): Table => {
  const share = (s: ProfileSummary, value: number) => `${Math.round(value)} (${((100 * value) / Math.max(1, s.totalMs)).toFixed(0)}%)`;
  return {
    caption,
    columns: [
      'case',
      'profile',
      'idle',
      'DocChat self',
      'under DocChat frames',
      'VS Code',
      'Node / other',
      'GC',
      '(program)',
      'top non-idle frames',
      'top DocChat frames',
    ],
    rows: profiles.map(({ label, summary: s }) => [
      label,
      Math.round(s.totalMs),
      share(s, s.byOrigin.idle),
      share(s, s.byOrigin.docchat),
      share(s, s.docchatInclusive),
      share(s, s.byOrigin.vscode),
      share(s, s.byOrigin.node + s.byOrigin.other),
      share(s, s.byOrigin.gc),
      share(s, s.byOrigin.program),
      s.top
        .filter((t) => !/^\((idle|program|garbage collector)\)/.test(t.frame))
        .slice(0, 6)
        .map((t) => `${t.frame} ${ms(t.selfMs)}`)
        .join('; '),
      s.topDocChat
        .slice(0, 5)
        .map((t) => `${t.frame} ${ms(t.selfMs)}`)
        .join('; ') || '—',
    ]),
  };
};

main(async (): Promise<BenchResult> => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-latency-'));
  const upstream = await startUpstream(markdownAnswer(100 * 1024));
  let backend: Awaited<ReturnType<typeof startBackendProcess>> | undefined;
  const runs: VersionRun[] = [];
  try {
    progress(`seeding a ${BIG_STORE_FILES.toLocaleString('en')}-file store and the handbook store`);
    const { demoId, bigId } = await seed(dataDir);
    backend = await startBackendProcess({ dataDir, token: TOKEN, apiKey: API_KEY, args: ['--no-rate-limits', '--upstream', upstream.url] });
    const documents = new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false });
    const gateway = new GatewayClient({ baseUrl: backend.url, token: API_KEY, rateLimits: false });
    const shared: Shared = {
      backendUrl: backend.url,
      demoId,
      bigId,
      upstream,
      documents,
      rawSearch: async (query, storeId = demoId) => {
        const start = performance.now();
        await documents.search(storeId, { query, max_num_results: MAX_RESULTS });
        return performance.now() - start;
      },
      rawFirstToken: async (model) => {
        const start = performance.now();
        let first = Number.NaN;
        for await (const part of gateway.streamChatCompletion({ model, messages: [{ role: 'user', content: QUESTION }] })) {
          if (Number.isNaN(first) && part.content) first = performance.now() - start;
        }
        return first;
      },
    };
    for (const name of TARGETS) runs.push(await measureVersion(name, shared));
  } finally {
    await backend?.stop();
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const tables: Table[] = [];
  const notes: string[] = [];
  const feltRows: (string | number)[][] = [];
  const missed: string[] = [];
  for (const id of [...new Set(runs.flatMap((r) => r.felt.map((f) => f.id)))]) {
    for (const r of runs) {
      const row = r.felt.find((f) => f.id === id);
      if (!row) continue;
      const figures = feltFigures(row.samples, row.target);
      const version = r.target.vscode;
      feltRows.push(feltRow(version, row.label, figures, row.target, `${r.load[0].toFixed(2)} → ${r.load[1].toFixed(2)}`));
      if (!figures.met && !row.label.startsWith(' ')) {
        missed.push(
          `VS Code ${version}: ${row.label.trim()}: overhead ${ms(figures.overhead.p50)} ms p50 (${ratio(figures.docchat.p50, figures.floor.p50)} the floor); goal ${describeGoal(row.target)}.`,
        );
      }
    }
  }
  tables.push({
    caption:
      "Felt latency: DocChat, the floor (the bare extension in the same VS Code, plus the server round trip DocChat waits for) and DocChat's own overhead (ms)",
    columns: FELT_COLUMNS,
    rows: feltRows,
  });
  for (const r of runs) tables.push(...r.tables);
  for (const r of runs) {
    if (r.hostProfiles.length) {
      tables.push(
        profileTable(
          `VS Code ${r.target.vscode}: extension host CPU profile per case (LATENCY_CPU_PROFILE), ms (share of the profile)`,
          r.hostProfiles,
        ),
      );
    }
    if (r.pageProfiles.length) {
      tables.push(
        profileTable(
          `VS Code ${r.target.vscode}: workbench page and webview CPU profile per case (LATENCY_CPU_PROFILE), ms (share of the profile)`,
          r.pageProfiles,
        ),
      );
    }
    notes.push(...r.notes);
  }
  notes.push(...missed.map((m) => `Missed: ${m}`));
  // A profiled run is slowed by its profilers: its figures get a section of their own.
  const profiledRun = Boolean(process.env.LATENCY_CPU_PROFILE);
  return {
    id: 'latency',
    title: profiledRun ? 'Latency the user feels: where the time goes (CPU profiles)' : 'Latency the user feels (VS Code + Chromium)',
    goal: `DocChat's own overhead over the floor — the same UI operation done by a bare extension in the same VS Code, plus the server's raw round trip DocChat waits for — at most one frame (${FRAME_MS} ms p50) for Enter → first answer text, search results, tree expand and Load more; the chat panel opened on 200 messages within ${PANEL_GOAL_RATIO}× its floor.`,
    method: `${runs.map((r) => `code-server ${r.target.codeServer} (VS Code ${r.target.vscode})`).join(' and ')}, one after the other in one run, each in headless Debian Chromium (the test harness) with DocChat from dist/ and the floor extension (test/bench/floor, never shipped) installed beside it, against the embedded backend (its CLI, rate limits off) whose gateway forwards to a scripted OpenAI-compatible upstream on 127.0.0.1 (\`instant\` answers at once, \`delayed\` after ${FIRST_TOKEN_DELAY_MS} ms; a ${SHORT_ANSWER.length}-character answer with a citation and code). The floor does each operation with nothing behind it: a tree provider answering ${PAGE_SIZE} ready rows and a Load more row, a quick pick given ready rows after the same ${DEFAULT_DEBOUNCE_MS} ms debounce, a webview panel that paints DocChat's own ${'<article>'}s of the same conversation from a static file, and a chat panel that echoes a ready token. Chat times are the webviews' own performance marks (the Enter key event's timeStamp → the task after the first paint that shows answer text); search and tree times are taken in the workbench page (input event timeStamp → the task after the paint that shows the rows); the panel's is the palette click → the task after the paint of the conversation (wall clock). DocChat and the floor alternate run by run (search: ${SEARCH_RUNS} runs each, one after the other); the server round trip is the same request by DocChat's API clients from the benchmark process, interleaved. Overhead = DocChat − floor at p50 and at p95; "× floor" is their ratio. The load column is the 1-minute load average when the version's measuring started and ended (the machine has ${os.cpus().length} cores). ${ROUNDS} rounds per chat case, ${BULK_RUNS} 100 KB answers, ${TREE_RUNS} expand/Load more runs, ${PANEL_RUNS} opens and switch cycles.${profiledRun ? " This run had the CPU profilers of the workbench page (with the webviews) and of the extension host on (LATENCY_CPU_PROFILE), sampling every 200 µs: they slow what they measure, so its times are for finding where the time goes, not figures; each profile spans its whole case, DocChat's and the floor's runs." : ''}`,
    tables,
    notes,
  };
});
