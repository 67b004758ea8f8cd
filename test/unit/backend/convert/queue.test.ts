import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ConversionPool, type ConversionTimer } from '../../../../src/backend/convert/pool';
import { pdfObject } from '../../../../src/backend/convert/pdf';
import { DocumentsService } from '../../../../src/backend/documents/service';
import { makePdf, tempDir } from '../helpers';

/** Timers the test expires itself: the progress bound and the "long conversion" mark. */
function manualTimer() {
  const live = new Set<{ ms: number; expire: () => void }>();
  const waiting: Array<{ ms: number; resolve: () => void }> = [];
  const timer: ConversionTimer = (expire, ms) => {
    const entry = { ms, expire };
    live.add(entry);
    for (const waiter of waiting.filter((w) => w.ms === ms)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
    return () => live.delete(entry);
  };
  const fire = (ms: number) => {
    for (const entry of [...live]) {
      if (entry.ms !== ms) continue;
      live.delete(entry);
      entry.expire();
    }
  };
  /** Resolves when a timer of `ms` is armed (at once when one already is). */
  const armed = (ms: number) =>
    [...live].some((e) => e.ms === ms) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ ms, resolve }));
  return { timer, fire, armed };
}

const STALL_MS = 60_000;
const LONG_MS = 2_000;
const workerScript = path.join(__dirname, 'stallingWorker.ts');

describe('backend: the conversion queue', function () {
  this.timeout(60_000);
  let dataDir: string;
  let service: DocumentsService;
  let logs: string[];
  let clock: ReturnType<typeof manualTimer>;

  async function open(limits: { workers: number; extraWorkers: number }) {
    dataDir = await tempDir();
    logs = [];
    clock = manualTimer();
    const pool = new ConversionPool({ ...limits, stallMs: STALL_MS, longMs: LONG_MS }, undefined, { workerScript, timer: clock.timer });
    service = await DocumentsService.open({ dataDir, pool, log: (level, message) => logs.push(`${level}: ${message}`) });
  }

  async function attach(storeId: string, filename: string, data: Uint8Array) {
    const file = await service.uploadFile(filename, data);
    await service.attachFile(storeId, file.id, undefined, false);
    return file.id;
  }

  afterEach(async () => {
    await service?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a small file converts beside a stalled one, which is stopped with a sentence naming file and page, and logged', async () => {
    await open({ workers: 1, extraWorkers: 1 });
    const store = await service.createStore('queue', {});
    const stalled = await attach(store.id, 'stalled-invoice.pdf', makePdf([{ lines: ['Invoice 1008'] }]));
    const small = await attach(store.id, 'notes.txt', Buffer.from('gearbox oil is changed every 500 hours'));
    // The stalled file has held the only worker long enough to count as long: a second one starts.
    await clock.armed(LONG_MS);
    clock.fire(LONG_MS);
    const done = await service.whenProcessed(store.id, small);
    assert.equal(done?.status, 'completed', done?.last_error ?? '');
    assert.equal(service.getStoreFile(store.id, stalled).status, 'in_progress');
    // No progress for the bound: the stalled conversion is stopped.
    clock.fire(STALL_MS);
    const failed = await service.whenProcessed(store.id, stalled);
    assert.equal(failed?.status, 'failed');
    assert.equal(
      failed?.last_error,
      'conversion stopped: stalled-invoice.pdf made no progress for 60 s while reading the pictures on page 2. ' +
        'Open it, save a copy (or print it to PDF) and attach that copy.',
    );
    const entry = logs.find((line) => line.includes('stalled-invoice.pdf'));
    assert.ok(entry, logs.join('\n'));
    assert.match(
      entry,
      /^warn: Conversion of stalled-invoice\.pdf \(\d+ bytes, file-\w+ in vs_\w+\) failed while reading the pictures on page 2: conversion stopped: stalled-invoice\.pdf made no progress for 60 s/,
    );
  });

  it('deleting a file stops its conversion and the next file converts at once', async () => {
    await open({ workers: 1, extraWorkers: 0 });
    const store = await service.createStore('queue', {});
    const stalled = await attach(store.id, 'stalled-scan.pdf', makePdf([{ lines: ['Scan'] }]));
    const small = await attach(store.id, 'notes.txt', Buffer.from('the turbine is inspected every spring'));
    // The stalled file holds the only worker (its progress bound is armed); the small one waits.
    await clock.armed(STALL_MS);
    assert.equal(service.getStoreFile(store.id, small).status, 'in_progress');
    await service.deleteFile(stalled);
    const done = await service.whenProcessed(store.id, small);
    assert.equal(done?.status, 'completed', done?.last_error ?? '');
    assert.ok(!logs.some((line) => line.includes('stalled-scan.pdf')), logs.join('\n'));
  });
});

describe('backend: PDF pictures are looked up where PDF.js keeps them', () => {
  const never = { has: () => false, get: (_name: string, _callback?: (value: unknown) => void) => undefined };

  it('a shared picture (g_ name) is read from the common objects', async () => {
    const picture = { width: 100, height: 50 };
    const commonObjs = { has: (name: string) => name === 'g_d0_img_p1_1', get: () => picture };
    assert.equal(await pdfObject({ objs: never, commonObjs }, 'g_d0_img_p1_1'), picture);
  });

  it('a picture that never arrives is given up after the bound instead of waiting forever', async () => {
    assert.equal(await pdfObject({ objs: never, commonObjs: never }, 'img_p0_1', 0), undefined);
  });
});
