/**
 * Keyword-search variants side by side in one process, on the same indexes: MT-RAG's
 * conversations played through the chat's grounding (`groundTurn`) as `conversations` plays them,
 * BEIR SciFact's test queries, and the search cost of each. The first variant is the baseline the
 * others are compared with (paired bootstrap over the same tasks); a variant with no setting is
 * the backend's own index (src/backend/search/storeIndex.ts), one with BM25's k1 and b or
 * pseudo-relevance feedback the candidate in searchVariants/candidateIndex.ts (measured, not
 * adopted). The indexes are built from the chunks the `conversations` benchmark's backend stored
 * (its cache folder, so run that benchmark once first) and, for SciFact, from each abstract as
 * the markdown file `beir` attaches, chunked by the backend's chunker. The backend's row
 * reproduces the `conversations` benchmark's figures.
 *
 * `npx tsx test/bench/searchVariants.ts` with
 *   DOCCHAT_VARIANTS='[{"name":"base"},{"name":"rm3","feedback":{"docs":10,"terms":5,"originalWeight":0.8}}]'
 *     (a variant: name, and any of k1, b, feedback {docs, terms, originalWeight, minDocs, idf, maxQueryTerms})
 *   DOCCHAT_BENCH_HALF=tune|heldout  the conversations of one half only (split as answers-public splits them)
 *   DOCCHAT_BEIR=/path/to/scifact    also SciFact (nDCG@10, Recall@100)
 *   DOCCHAT_LATENCY=1                also the search cost, interleaved in this process
 *   DOCCHAT_SKIP_CONVERSATIONS=1     SciFact only
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chunkMarkdown } from '../../src/backend/chunking/chunker';
import { documentTitle, type SearchHit, StoreIndex } from '../../src/backend/search/storeIndex';
import { CandidateIndex, type FeedbackOptions } from './searchVariants/candidateIndex';
import { FileNameCache, type GroundingDocuments, groundTurn } from '../../src/chatCore/grounding';
import { type QueryTurn, QueryRewriter } from '../../src/chatCore/searchQuery';
import { ndcgAt, recallAt } from './beir/metrics';
import { cacheFolder, dataFolder, readCollection, type Task } from './conversations/collection';
import { conversations } from './conversations/session';
import { mean, pairedBootstrap, score, type TaskScores } from './conversations/measures';
import { halfOf } from './conversations/halves';
import { repoRoot } from './lib/backendProcess';

const MAX_RESULTS = 10;

interface Variant {
  name: string;
  k1?: number;
  b?: number;
  feedback?: FeedbackOptions;
  /** The candidate index even without a setting (to see that it ranks as the backend does). */
  candidate?: boolean;
}

/** What a variant searches: the backend's own index, or the candidate (searchVariants/candidateIndex.ts). */
interface Searchable {
  addFile(fileId: string, chunks: readonly { text: string; heading: string }[], vectors: undefined, title: string): void;
  search(query: string, options: { maxResults: number; fileIds?: readonly string[]; feedback?: FeedbackOptions }): SearchHit[];
}

const variants: Variant[] = JSON.parse(process.env.DOCCHAT_VARIANTS ?? '[{"name":"base"}]') as Variant[];
const usesCandidate = (v: Variant) => v.candidate || v.k1 !== undefined || v.b !== undefined || v.feedback !== undefined;
const paramKey = (v: Variant) => (usesCandidate(v) ? `candidate ${v.k1 ?? ''}/${v.b ?? ''}` : 'backend');

function newIndex(v: Variant): Searchable {
  if (!usesCandidate(v)) return new StoreIndex();
  return new CandidateIndex({ ...(v.k1 !== undefined ? { k1: v.k1 } : {}), ...(v.b !== undefined ? { b: v.b } : {}) });
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** A StoreIndex per BM25 parameter set, with a client over it that searches with the variant's feedback. */
class InProcessDocuments implements GroundingDocuments {
  constructor(
    private readonly indexes: Map<string, Searchable>,
    private readonly filenames: Map<string, string>,
    private readonly feedback: FeedbackOptions | undefined,
  ) {}

  async search(storeId: string, body: { query: string; max_num_results?: number; file_ids?: string[] }) {
    const index = this.indexes.get(storeId)!;
    const hits = index.search(body.query, {
      maxResults: body.max_num_results ?? 10,
      ...(body.file_ids ? { fileIds: body.file_ids } : {}),
      ...(this.feedback ? { feedback: this.feedback } : {}),
    });
    return {
      data: hits.map((hit) => ({
        score: hit.score,
        content: hit.text,
        file_id: hit.fileId,
        filename: this.filenames.get(hit.fileId) ?? null,
        chunk_index: hit.chunkIndex,
        heading: hit.heading,
      })),
    };
  }

  async retrieveFile(fileId: string) {
    return { filename: this.filenames.get(fileId) ?? '' };
  }
}

interface Row {
  domain: string;
  followUp: boolean;
  scores: TaskScores;
}

async function conversationsRun(): Promise<void> {
  const folder = dataFolder(repoRoot);
  if (!folder) throw new Error('no conversation set');
  const collection = readCollection(folder);
  const cache = cacheFolder(collection);
  const half = process.env.DOCCHAT_BENCH_HALF;
  const domains = [...new Set(collection.passages.map((p) => p.domain))].sort();
  // Stores as the conversations benchmark left them: file id → passage id, chunks on disk.
  const stores = new Map<string, { storeId: string; passageOf: Map<string, string> }>();
  const filenames = new Map<string, string>();
  const chunksOf = new Map<string, { fileId: string; chunks: { text: string; heading: string }[] }[]>();
  for (const domain of domains) {
    const saved = JSON.parse(readFileSync(path.join(cache, `${domain}.files.json`), 'utf8')) as {
      storeId: string;
      files: Record<string, string>;
    };
    stores.set(domain, { storeId: saved.storeId, passageOf: new Map(Object.entries(saved.files)) });
    const files: { fileId: string; chunks: { text: string; heading: string }[] }[] = [];
    for (const [fileId, passageId] of Object.entries(saved.files)) {
      filenames.set(fileId, `${passageId}.txt`);
      const stored = JSON.parse(readFileSync(path.join(cache, 'chunks', saved.storeId, `${fileId}.json`), 'utf8')) as {
        chunks: { text: string; heading: string }[];
      };
      files.push({ fileId, chunks: stored.chunks });
    }
    chunksOf.set(saved.storeId, files);
  }
  const indexSets = new Map<string, Map<string, Searchable>>();
  for (const v of variants) {
    const key = paramKey(v);
    if (indexSets.has(key)) continue;
    const set = new Map<string, Searchable>();
    for (const [storeId, files] of chunksOf) {
      const index = newIndex(v);
      for (const { fileId, chunks } of files) index.addFile(fileId, chunks, undefined, documentTitle(filenames.get(fileId)!));
      set.set(storeId, index);
    }
    indexSets.set(key, set);
  }
  if (process.env.DOCCHAT_LATENCY) latency(collection.tasks, stores, indexSets);
  const all = conversations(collection).filter((c) => !half || halfOf(c.id) === half);
  log(`${all.length} conversations${half ? ` (${half} half)` : ''}, ${variants.length} variants`);
  const results: Row[][] = [];
  for (const v of variants) {
    const started = performance.now();
    const client = new InProcessDocuments(indexSets.get(paramKey(v))!, filenames, v.feedback);
    const fileNames = new FileNameCache();
    const rows: Row[] = [];
    for (const conversation of all) {
      const domain = stores.get(conversation.domain)!;
      const store = { id: domain.storeId, name: conversation.domain };
      const ids = (passages: readonly { fileId: string }[]) => passages.map((p) => domain.passageOf.get(p.fileId) ?? p.fileId);
      const history: QueryTurn[] = [];
      let turnNumber = 0;
      for (let i = 0; i < conversation.turns.length; i++) {
        const message = conversation.turns[i]!;
        if (message.role !== 'user') continue;
        turnNumber++;
        const task: Task | undefined = conversation.tasks.get(turnNumber);
        const found = await groundTurn(
          client,
          { question: message.content, history, stores: [store], maxResults: MAX_RESULTS, rewriter: new QueryRewriter() },
          fileNames,
        );
        if (task) rows.push({ domain: task.domain, followUp: task.turn > 1, scores: score(ids(found.passages), task.qrels) });
        history.push({ role: 'user', content: message.content });
        const answer = conversation.turns[i + 1];
        history.push({
          role: 'assistant',
          content: answer?.role === 'assistant' ? answer.content : '',
          searchQuery: found.query,
          sources: found.passages,
        });
      }
    }
    log(`${v.name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    results.push(rows);
  }
  const groups: { label: string; keep: (r: Row) => boolean }[] = [];
  for (const followUp of [false, true]) {
    for (const domain of domains) {
      groups.push({
        label: `${domain} ${followUp ? 'follow-ups' : 'first turns'}`,
        keep: (r) => r.domain === domain && r.followUp === followUp,
      });
    }
    groups.push({ label: `all ${followUp ? 'follow-ups' : 'first turns'}`, keep: (r) => r.followUp === followUp });
  }
  const f3 = (n: number) => n.toFixed(3);
  const signed = (n: number) => (n >= 0 ? '+' : '') + n.toFixed(3);
  for (const key of ['recall5', 'recall10', 'ndcg10'] as const) {
    console.log(`\n### MT-RAG ${half ?? 'all'} — ${key}\n`);
    console.log(`| variant | ${groups.map((g) => `${g.label} (${results[0]!.filter(g.keep).length})`).join(' | ')} |`);
    console.log(`|---|${groups.map(() => '---').join('|')}|`);
    variants.forEach((v, i) => {
      const cells = groups.map((g) => {
        const a = results[i]!.filter(g.keep).map((r) => r.scores[key]);
        if (i === 0) return f3(mean(a));
        const base = results[0]!.filter(g.keep).map((r) => r.scores[key]);
        const [low, high] = pairedBootstrap(a, base);
        return `${f3(mean(a))} (${signed(mean(a) - mean(base))} [${signed(low)}, ${signed(high)}])`;
      });
      console.log(`| ${v.name} | ${cells.join(' | ')} |`);
    });
  }
}

/**
 * Search cost of each variant against the first, interleaved query by query in this process: every
 * task's message as written and the benchmark's rewrite, at 10 and 50 results, five rounds.
 */
function latency(tasks: readonly Task[], stores: Map<string, { storeId: string }>, indexSets: Map<string, Map<string, Searchable>>): void {
  const queries = tasks.flatMap((t) =>
    [t.turns[t.turns.length - 1]!.content, t.rewrite].filter(Boolean).map((q) => ({ q, store: stores.get(t.domain)!.storeId })),
  );
  const times = variants.map(() => [] as number[]);
  for (let round = 0; round < 5; round++) {
    for (const depth of [10, 50]) {
      for (const { q, store } of queries) {
        variants.forEach((v, i) => {
          const index = indexSets.get(paramKey(v))!.get(store)!;
          const started = performance.now();
          index.search(q, { maxResults: depth, ...(v.feedback ? { feedback: v.feedback } : {}) });
          if (round > 0) times[i]!.push(performance.now() - started);
        });
      }
    }
  }
  const quantile = (values: number[], p: number) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;
  console.log(`\n### Search cost in process (${queries.length} queries × 10 and 50 results × 4 timed rounds, interleaved)\n`);
  console.log('| variant | median ms | p95 ms | mean ms | ratio of means to the first |');
  console.log('|---|---|---|---|---|');
  const meanOf = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  variants.forEach((v, i) => {
    const t = times[i]!;
    console.log(
      `| ${v.name} | ${quantile(t, 0.5).toFixed(3)} | ${quantile(t, 0.95).toFixed(3)} | ${meanOf(t).toFixed(3)} | ${(meanOf(t) / meanOf(times[0]!)).toFixed(2)}× |`,
    );
  });
}

function readJsonLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function scifactRun(folder: string): void {
  const documents = readJsonLines(path.join(folder, 'corpus.jsonl')).map((d) => ({
    id: String(d._id),
    title: String(d.title ?? ''),
    text: String(d.text ?? ''),
  }));
  const judgements = new Map<string, Map<string, number>>();
  for (const line of readFileSync(path.join(folder, 'qrels/test.tsv'), 'utf8').split('\n')) {
    const [queryId, docId, gain] = line.trim().split('\t');
    if (!queryId || !docId || queryId === 'query-id' || Number.isNaN(Number(gain))) continue;
    if (!judgements.has(queryId)) judgements.set(queryId, new Map());
    judgements.get(queryId)!.set(docId, Number(gain));
  }
  const texts = new Map(readJsonLines(path.join(folder, 'queries.jsonl')).map((q) => [String(q._id), String(q.text)]));
  const queries = [...judgements.keys()].map((id) => ({ id, text: texts.get(id)! }));
  // Each abstract as the markdown file the `beir` benchmark attaches: the title as its heading.
  const chunked = documents.map((doc) => ({
    id: doc.id,
    chunks: chunkMarkdown(doc.title ? `# ${doc.title}\n\n${doc.text}\n` : `${doc.text}\n`).map((c) => ({
      text: c.text,
      heading: c.heading,
    })),
  }));
  const indexes = new Map<string, Searchable>();
  const perVariant: { ndcg: number[]; recall: number[]; ms: number }[] = [];
  for (const v of variants) {
    const key = paramKey(v);
    let index = indexes.get(key);
    if (!index) {
      index = newIndex(v);
      for (const doc of chunked) index.addFile(doc.id, doc.chunks, undefined, documentTitle(`${doc.id}.md`));
      indexes.set(key, index);
    }
    const ndcg: number[] = [];
    const recall: number[] = [];
    const started = performance.now();
    for (const query of queries) {
      const hits = index.search(query.text, { maxResults: 100, ...(v.feedback ? { feedback: v.feedback } : {}) });
      const ranking = [...new Set(hits.map((h) => h.fileId))];
      const judged = judgements.get(query.id)!;
      ndcg.push(ndcgAt(ranking, judged, 10));
      recall.push(recallAt(ranking, judged, 100));
    }
    perVariant.push({ ndcg, recall, ms: (performance.now() - started) / queries.length });
  }
  const signed = (n: number) => (n >= 0 ? '+' : '') + n.toFixed(3);
  console.log(`\n### SciFact (${documents.length} abstracts, ${queries.length} test queries)\n`);
  console.log('| variant | nDCG@10 | Recall@100 | ms per query (100 results) |');
  console.log('|---|---|---|---|');
  variants.forEach((v, i) => {
    const { ndcg, recall, ms } = perVariant[i]!;
    const diff = (a: number[], b: number[]) => {
      if (i === 0) return '';
      const [low, high] = pairedBootstrap(a, b);
      return ` (${signed(mean(a) - mean(b))} [${signed(low)}, ${signed(high)}])`;
    };
    console.log(
      `| ${v.name} | ${mean(ndcg).toFixed(3)}${diff(ndcg, perVariant[0]!.ndcg)} | ${mean(recall).toFixed(3)}${diff(recall, perVariant[0]!.recall)} | ${ms.toFixed(2)} |`,
    );
  });
}

async function run(): Promise<void> {
  if (!process.env.DOCCHAT_SKIP_CONVERSATIONS) await conversationsRun();
  const beir = process.env.DOCCHAT_BEIR;
  if (beir && existsSync(path.join(beir, 'corpus.jsonl'))) scifactRun(beir);
}

run().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
