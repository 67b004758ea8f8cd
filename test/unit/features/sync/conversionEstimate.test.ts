/**
 * The time left while files convert, on recorded sequences of looks: when each look was made and
 * which files it no longer found converting.
 */
import * as assert from 'node:assert/strict';
import { ConversionEstimate } from '../../../../src/features/sync/eta';

interface Report {
  /** Seconds since conversion began. */
  at: number;
  converting: number;
  eta: number | undefined;
  /** The largest file converted, and the middle one (by size) of those converting, as of the last look. */
  largestConverted: number;
  middleConverting: number;
}

/**
 * Feeds the looks to an estimate (conversion began at 0) and reads it once a second between them,
 * as the sync's progress does. `sizes`: every file's size by name; each look: its time (s) and the
 * files it found finished.
 */
function replay(sizes: Record<string, number>, looks: readonly (readonly [number, readonly string[]])[]): Report[] {
  const left = new Map(Object.entries(sizes));
  const estimate = new ConversionEstimate(0, [...left.values()]);
  const reports: Report[] = [];
  let largestConverted = 0;
  for (const [k, [at, finished]] of looks.entries()) {
    for (const name of finished) {
      largestConverted = Math.max(largestConverted, left.get(name)!);
      assert.ok(left.delete(name), `${name} finished twice`);
    }
    if (left.size === 0) break;
    const converting = [...left.values()].sort((a, b) => a - b);
    const middleConverting = converting[Math.floor((converting.length - 1) / 2)]!;
    estimate.observe([...left.values()], at * 1000);
    const next = looks[k + 1]?.[0] ?? at + 1;
    for (let t = at; t < next; t += 1) {
      reports.push({ at: t, converting: left.size, eta: estimate.secondsLeft(t * 1000), largestConverted, middleConverting });
    }
  }
  return reports;
}

/** Finish times (s) of files converting `workers` at a time in the order given, each taking its duration (s). */
function schedule(durations: readonly number[], workers: number): number[] {
  const free = new Array<number>(workers).fill(0);
  return durations.map((duration) => {
    const worker = free.indexOf(Math.min(...free));
    free[worker]! += duration;
    return free[worker]!;
  });
}

/** The looks of the sync's settle loop (one at once, then 1, 2, 4, 8 and 10 s apart) over finish times. */
function looksOver(finish: readonly number[]): [number, string[]][] {
  const looks: [number, string[]][] = [];
  let at = 0;
  let delay = 1;
  const seen = new Set<number>();
  while (seen.size < finish.length) {
    const done = finish.map((f, i) => (f <= at && !seen.has(i) ? i : -1)).filter((i) => i >= 0);
    done.forEach((i) => seen.add(i));
    looks.push([at, done.map((i) => `f${i}`)]);
    at += delay;
    delay = Math.min(delay * 2, 10);
  }
  return looks;
}

/** Every shown time is at most the one before it (a time may be withdrawn, and come back only lower or after a finish). */
function assertNeverGrowsWithoutFinish(reports: readonly Report[]): void {
  for (let k = 1; k < reports.length; k++) {
    const [a, b] = [reports[k - 1]!, reports[k]!];
    if (a.eta === undefined || b.eta === undefined) continue;
    if (b.converting === a.converting) assert.ok(b.eta <= a.eta, `grew from ${a.eta} s to ${b.eta} s at ${b.at} s with nothing finished`);
  }
}

describe('time left while files convert (recorded sequences)', () => {
  it('a folder of two small files and seven large PDFs (converted two at a time): no time until a large one finished, then one that only counts down', () => {
    // The sequence of a sync of 9 files, as its progress showed it: a .docx (19 KB), a 2-page PDF
    // with pictures (213 KB) and seven byte-variants of one 1.28 MB PDF. The old estimate said
    // "35 s left" at 15 s (when the two small ones had converted), jumped from 6 s to 60 s at 45 s
    // and from 30 s to 42 s at 76 s; the last file converted between 116 s and 126 s.
    const big = 1_277_951;
    const sizes = { docx: 18_762, pictures: 212_855, v1: big, v2: big, v3: big, v4: big, v5: big, v6: big, v7: big };
    const reports = replay(sizes, [
      [0, []],
      [1, []],
      [3, ['docx']],
      [7, []],
      [15.1, ['pictures']],
      [25.1, []],
      [35.1, []],
      [45.1, ['v2']],
      [55.1, []],
      [65.1, []],
      [75.2, ['v1', 'v4']],
      [85.2, ['v5']],
      [95.2, ['v6']],
      [105.2, ['v3']],
      [115.2, []],
      [125.2, ['v7']],
    ]);
    for (const r of reports.filter((r) => r.at < 45.1)) {
      assert.equal(r.eta, undefined, `at ${r.at} s only small files had converted, yet ${r.eta} s was told`);
    }
    const first = reports.find((r) => r.eta !== undefined)!;
    assert.equal(first.at, 45.1);
    // The last file converted between 115.2 s and 125.2 s: 70–80 s were left.
    assert.ok(first.eta! >= 70 && first.eta! <= 80, `first estimate ${first.eta} s`);
    const told = reports.filter((r) => r.eta !== undefined);
    for (let k = 1; k < told.length; k++) {
      assert.ok(told[k]!.eta! <= told[k - 1]!.eta!, `grew from ${told[k - 1]!.eta} s to ${told[k]!.eta} s at ${told[k]!.at} s`);
    }
    // It counts down to the end without being withdrawn before the last file is the only one left.
    assert.ok(
      reports.filter((r) => r.at >= 45.1 && r.converting > 1).every((r) => r.eta !== undefined),
      'a time all along',
    );
  });

  it('three at a time, three notes then nine scans: no time from the notes’ pace, and none that grows while nothing finishes', () => {
    // Notes take 2 s; scans 20–26 s (a recorded spread). The notes' pace (three files in 2 s) promised
    // 6 s for the nine scans, which took 70 s.
    const durations = [2, 2, 2, 22, 20, 26, 21, 24, 23, 25, 20, 22];
    const finish = schedule(durations, 3);
    const sizes = Object.fromEntries(durations.map((_, i) => [`f${i}`, i < 3 ? 20_000 : 800_000]));
    const reports = replay(sizes, looksOver(finish));
    const firstScan = Math.min(...finish.slice(3));
    for (const r of reports.filter((r) => r.at < firstScan)) {
      assert.equal(r.eta, undefined, `at ${r.at} s: ${r.eta} s from the notes’ pace`);
    }
    const told = reports.filter((r) => r.eta !== undefined);
    assert.ok(told.length > 10, `${told.length} reports with a time`);
    assertNeverGrowsWithoutFinish(reports);
  });

  it('files of one size, four at a time: a time from the second finish on, as before', () => {
    const durations = [9, 10, 11, 12, 9, 10, 11, 12, 9, 10, 11, 12];
    const finish = schedule(durations, 4);
    const sizes = Object.fromEntries(durations.map((_, i) => [`f${i}`, 300_000]));
    const reports = replay(sizes, looksOver(finish));
    const second = [...finish].sort((a, b) => a - b)[1]!;
    const firstTold = reports.find((r) => r.eta !== undefined)!;
    // The look after the second finish tells a time.
    assert.ok(firstTold.at >= second && firstTold.at <= second + 10, `first time at ${firstTold.at} s (second finish at ${second} s)`);
    assertNeverGrowsWithoutFinish(reports);
  });

  it('a large file first, small ones after: the small ones’ pace is told, then withdrawn rather than grown while the large one converts', () => {
    // One 5 MB PDF (60 s) and ten 50 KB files (3 s each), two at a time.
    const durations = [60, ...new Array<number>(10).fill(3)];
    const finish = schedule(durations, 2);
    const sizes = Object.fromEntries(durations.map((_, i) => [`f${i}`, i === 0 ? 5_000_000 : 50_000]));
    const reports = replay(sizes, looksOver(finish));
    assertNeverGrowsWithoutFinish(reports);
    const alone = reports.filter((r) => r.converting === 1);
    assert.ok(alone.length > 10, `${alone.length} reports while the large file converted alone`);
    assert.equal(alone.at(-1)!.eta, undefined, 'long past the small files’ pace, no time is promised');
  });

  it('over generated folders (sizes, spreads and parallel conversion of many kinds): never grows while nothing finishes, never tells a time without evidence', () => {
    let seed = 20_261_128;
    const random = () => {
      seed = (seed * 1_664_525 + 1_013_904_223) >>> 0;
      return seed / 2 ** 32;
    };
    for (let run = 0; run < 200; run++) {
      const count = 3 + Math.floor(random() * 30);
      // Sizes from 10 KB to 10 MB; a conversion takes 1 s plus up to 30 s a MB, spread ±50 %.
      const sizes = Array.from({ length: count }, () => Math.round(10_000 * 1_000 ** random()));
      if (run % 3 === 0) sizes.sort((a, b) => a - b);
      const durations = sizes.map((size) => Math.round((1 + (30 * size) / 1_000_000) * (0.5 + random())));
      const workers = [1, 2, 3, 4, 8, 64][run % 6]!;
      const finish = schedule(durations, workers);
      const named = Object.fromEntries(sizes.map((size, i) => [`f${i}`, size]));
      const reports = replay(named, looksOver(finish));
      assertNeverGrowsWithoutFinish(reports);
      for (const r of reports) {
        if (r.eta === undefined) continue;
        assert.ok(count - r.converting >= 2, `run ${run}: a time at ${r.at} s with ${count - r.converting} file(s) converted`);
        assert.ok(
          r.largestConverted >= r.middleConverting,
          `run ${run}: a time at ${r.at} s from files of ${r.largestConverted} bytes at most, while the middle one converting has ${r.middleConverting}`,
        );
      }
    }
  });

  it('tells no time from small files while only larger ones are left, whatever their number', () => {
    const estimate = new ConversionEstimate(0, [10, 10, 10, 500, 500, 500]);
    estimate.observe([10, 500, 500, 500], 4_000);
    assert.equal(estimate.secondsLeft(4_000), undefined, 'two small files converted; the large ones left');
    estimate.observe([500, 500, 500], 5_000);
    assert.equal(estimate.secondsLeft(5_000), undefined, 'three small files converted');
    // A large one converted between 5 s and 7 s (taken at 6 s): 4 files in 6 s, 2 left, 1 s since.
    estimate.observe([500, 500], 7_000);
    assert.equal(estimate.secondsLeft(7_000), (6 / 4) * 2 - 1);
  });

  it('tells a time once a file as large as the middle one still converting has finished', () => {
    // Left after two finishes: 10, 500, 500 (the middle one 500); the largest finished: 500.
    const estimate = new ConversionEstimate(0, [10, 10, 500, 500, 500]);
    estimate.observe([10, 500, 500], 4_000);
    assert.equal(estimate.secondsLeft(4_000), (2 / 2) * 3 - 2);
  });

  it('counts files alike when their sizes are not known', () => {
    const estimate = new ConversionEstimate(0, 4);
    estimate.observe(4, 1_000);
    estimate.observe(2, 9_000);
    // Two files in 5 s (the middle of 1–9 s), two left, 4 s since.
    assert.equal(estimate.secondsLeft(9_000), (5 / 2) * 2 - 4);
  });
});
