/**
 * A seeded PRNG for "random" moments (when to kill the backend, what to write) that a failing run
 * can replay. The backend's command line itself is started through `test/support/harness/backend.ts`.
 */

/** mulberry32: small, fast, good enough to pick moments; the same seed gives the same run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: DOCCHAT_TEST_SEED to replay one, otherwise a fresh one. */
export function testSeed(): number {
  const given = Number(process.env.DOCCHAT_TEST_SEED);
  return Number.isInteger(given) ? given : Math.floor(Math.random() * 1_000_000);
}
