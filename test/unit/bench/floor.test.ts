import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { feltFigures, feltRow, FELT_COLUMNS, FLOOR_DIR, FLOOR_EXTENSION_ID } from '../../bench/latency/floor';
import { ms } from '../../bench/lib/stats';

describe('latency benchmark: DocChat against its floor', () => {
  it('adds the server round trip to the floor run by run, and reports DocChat − floor at p50 and p95', () => {
    const figures = feltFigures(
      { docchat: [40, 30, 50, 20, 100], floor: [10, 12, 11, 9, 30], server: [2, 3, 2, 1, 5] },
      { kind: 'overhead', maxMs: 16.7 },
    );
    // Floor per run: 12, 15, 13, 10, 35 → p50 13, p95 35 (nearest rank).
    assert.deepEqual(figures.floor, { p50: 13, p95: 35 });
    assert.deepEqual(figures.docchat, { p50: 40, p95: 100 });
    assert.deepEqual(figures.overhead, { p50: 27, p95: 65 });
    assert.deepEqual(figures.server, { p50: 2, p95: 5 });
    assert.equal(figures.met, false);
    assert.equal(figures.n, 5);
  });

  it('meets an overhead goal of one frame and a ratio goal by p50', () => {
    assert.equal(feltFigures({ docchat: [25, 26, 27], floor: [10, 10, 10] }, { kind: 'overhead', maxMs: 16.7 }).met, true);
    const panel = feltFigures({ docchat: [130, 120, 125], floor: [100, 100, 100] }, { kind: 'ratio', max: 1.2 });
    assert.equal(panel.ratio.p50, 1.25);
    assert.equal(panel.met, false);
    assert.equal(feltFigures({ docchat: [119, 118], floor: [100, 100] }, { kind: 'ratio', max: 1.2 }).met, true);
  });

  it('refuses a row without samples, or a server that was not measured once per floor run', () => {
    assert.throws(() => feltFigures({ docchat: [], floor: [1] }, { kind: 'overhead', maxMs: 16.7 }), /needs DocChat and floor samples/);
    assert.throws(
      () => feltFigures({ docchat: [1], floor: [1, 2], server: [1] }, { kind: 'overhead', maxMs: 16.7 }),
      /floor has 2 runs but the server 1/,
    );
  });

  it('prints a row per column with the load beside the figures', () => {
    const target = { kind: 'overhead', maxMs: 16.7 } as const;
    const row = feltRow('1.139.1', 'search', feltFigures({ docchat: [30], floor: [10], server: [2] }, target), target, '1.50 → 2.00');
    assert.equal(row.length, FELT_COLUMNS.length);
    assert.deepEqual(row, [
      '1.139.1',
      'search',
      '30.0',
      '30.0',
      '12.0',
      '12.0',
      '2.00',
      '18.0',
      '18.0',
      '2.50×',
      '2.50×',
      'overhead p50 ≤ 16.7 ms',
      '**NO**',
      1,
      '1.50 → 2.00',
    ]);
  });

  it('the floor is an extension of its own, never DocChat (the packaging test keeps it out of the .vsix)', () => {
    const floor = JSON.parse(readFileSync(path.join(FLOOR_DIR, 'package.json'), 'utf8'));
    assert.equal(`${floor.publisher}.${floor.name}`, FLOOR_EXTENSION_ID);
    const root = path.resolve(FLOOR_DIR, '../../..');
    const docchat = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    assert.notEqual(`${docchat.publisher}.${docchat.name}`, FLOOR_EXTENSION_ID);
  });
});

describe('benchmark number formatting', () => {
  it('gives an overhead below zero the precision of its size', () => {
    assert.equal(ms(-25), '-25.0');
    assert.equal(ms(-344.4), '-344');
    assert.equal(ms(-1.234), '-1.23');
    assert.equal(ms(-0.5), '-0.500');
    assert.equal(ms(25), '25.0');
  });
});
