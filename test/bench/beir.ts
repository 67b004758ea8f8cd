/**
 * Retrieval quality of the embedded backend on a public information-retrieval test collection in
 * BEIR's layout (`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`), named by the environment
 * variable DOCCHAT_BEIR; SciFact is the one with published BM25 figures here. Every document is
 * uploaded and attached as one markdown file through the documents service (convert, chunk,
 * index), then every test query is searched over HTTP with DocumentsClient, keyword only and
 * fused, and scored with BEIR's nDCG@10 and recall. The collection is never part of the
 * repository: without DOCCHAT_BEIR the benchmark says how to get it and records nothing.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DocumentsClient } from '../../src/api/documents/client';
import { LIMITS } from '../../src/api/documents/schemas';
import { LOCAL_EMBEDDING_MODEL, startBackend, type RunningBackend } from '../../src/backend';
import { normalize } from '../../src/backend/search/storeIndex';
import { ndcgAt, recallAt, type Judgements } from './beir/metrics';
import { repoRoot } from './lib/backendProcess';
import { type BenchResult, main, progress, type Table } from './lib/report';
import { nowMs, ratio } from './lib/stats';

const TOKEN = 'bench-token';
const PARALLEL_UPLOADS = 8;
/** The service's most results per search (the documents API allows 1 to 50). */
const SERVICE_MAX = LIMITS.maxNumResults.max;
/** Published recall is at 100; the index answers that many when asked in process. */
const INDEX_DEPTH = 100;
const DOWNLOAD = 'https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip';

interface Published {
  ndcg10: number;
  recall100: number;
  source: string;
}

/** Published BM25 figures on a dataset's test split, by the folder's name. */
const PUBLISHED: Record<string, { multifield: Published; flat: Published }> = {
  scifact: {
    multifield: {
      ndcg10: 0.665,
      recall100: 0.908,
      source:
        'BEIR paper (Thakur et al., NeurIPS 2021 Datasets and Benchmarks, Table 2: BM25 by Elasticsearch, title and text as separate fields); Anserini\'s "multifield" regression reproduces it as 0.6647 / R@100 0.9076 (castorini/anserini docs/regressions-beir-v1.0.0-scifact-multifield.md)',
    },
    flat: {
      ndcg10: 0.6789,
      recall100: 0.9253,
      source:
        'Anserini\'s "flat" regression, title and text as one field (castorini/anserini docs/regressions-beir-v1.0.0-scifact-flat.md)',
    },
  },
};

interface Collection {
  name: string;
  documents: { id: string; title: string; text: string }[];
  queries: { id: string; text: string }[];
  judgements: Map<string, Judgements>;
}

function readJsonLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Reads a dataset in BEIR's layout; the test split's queries are those the qrels judge. */
function readCollection(folder: string): Collection {
  const documents = readJsonLines(path.join(folder, 'corpus.jsonl')).map((d) => ({
    id: String(d._id),
    title: String(d.title ?? ''),
    text: String(d.text ?? ''),
  }));
  const judgements = new Map<string, Map<string, number>>();
  for (const line of readFileSync(path.join(folder, 'qrels/test.tsv'), 'utf8').split('\n')) {
    const [queryId, docId, score] = line.trim().split('\t');
    if (!queryId || !docId || queryId === 'query-id' || Number.isNaN(Number(score))) continue;
    if (!judgements.has(queryId)) judgements.set(queryId, new Map());
    judgements.get(queryId)!.set(docId, Number(score));
  }
  const texts = new Map(readJsonLines(path.join(folder, 'queries.jsonl')).map((q) => [String(q._id), String(q.text)]));
  const queries = [...judgements.keys()].map((id) => {
    const text = texts.get(id);
    if (text === undefined) throw new Error(`query ${id} is judged in qrels/test.tsv but missing from queries.jsonl`);
    return { id, text };
  });
  return { name: path.basename(path.resolve(folder)).toLowerCase(), documents, queries, judgements };
}

type FileFormat = 'markdown' | 'text';

/** One document as a user's file: markdown with the title as its heading, or plain text with the title as its first line. */
function documentFile(doc: Collection['documents'][number], format: FileFormat): { name: string; data: Buffer } {
  if (format === 'text') return { name: `${doc.id}.txt`, data: Buffer.from(doc.title ? `${doc.title}\n\n${doc.text}\n` : `${doc.text}\n`) };
  return { name: `${doc.id}.md`, data: Buffer.from(doc.title ? `# ${doc.title}\n\n${doc.text}\n` : `${doc.text}\n`) };
}

interface Side {
  backend: RunningBackend;
  /** How the service must say it ranked this side's results. */
  rankedBy: 'bm25' | 'hybrid';
  storeId: string;
  /** Service file id → the collection's document id. */
  docOf: Map<string, string>;
  chunks: number;
  ingestSeconds: number;
}

async function ingest(
  backend: RunningBackend,
  rankedBy: Side['rankedBy'],
  format: FileFormat,
  collection: Collection,
  label: string,
): Promise<Side> {
  const docs = backend.documents;
  const store = await docs.createStore(`beir-${collection.name}-${format}`, {});
  const docOf = new Map<string, string>();
  const started = nowMs();
  for (let i = 0; i < collection.documents.length; i += PARALLEL_UPLOADS) {
    await Promise.all(
      collection.documents.slice(i, i + PARALLEL_UPLOADS).map(async (doc) => {
        const { name, data } = documentFile(doc, format);
        const file = await docs.uploadFile(name, data);
        await docs.attachFile(store.id, file.id, undefined, false);
        docOf.set(file.id, doc.id);
      }),
    );
    if (i % 1000 < PARALLEL_UPLOADS) progress(`${label}: ${i} of ${collection.documents.length} documents attached`);
  }
  let chunks = 0;
  for (const fileId of docOf.keys()) {
    const record = await docs.whenProcessed(store.id, fileId);
    if (record?.status !== 'completed') throw new Error(`${docOf.get(fileId)}: ${record?.status} ${record?.last_error ?? ''}`);
    chunks += (record as { chunk_count?: number }).chunk_count ?? 0;
  }
  return { backend, rankedBy, storeId: store.id, docOf, chunks, ingestSeconds: (nowMs() - started) / 1000 };
}

/** Documents in the order of their best chunk. */
function documentRanking(side: Side, fileIds: readonly string[]): string[] {
  const ranked = new Set<string>();
  for (const fileId of fileIds) ranked.add(side.docOf.get(fileId) ?? fileId);
  return [...ranked];
}

interface Scores {
  ndcg10: number;
  recallService: number;
  recallIndex: number;
  /** Mean distinct documents among the service's SERVICE_MAX results. */
  documentsPerSearch: number;
  querySeconds: number;
}

async function evaluate(side: Side, collection: Collection): Promise<Scores> {
  const client = new DocumentsClient({ baseUrl: side.backend.url, token: TOKEN, rateLimits: false });
  const index = side.backend.documents.ingest.index(side.storeId);
  const embedder = side.backend.documents.ingest.embedder;
  let ndcg = 0;
  let recallService = 0;
  let recallIndex = 0;
  let distinct = 0;
  const started = nowMs();
  try {
    for (const query of collection.queries) {
      const judged = collection.judgements.get(query.id)!;
      const page = await client.search(side.storeId, { query: query.text, max_num_results: SERVICE_MAX });
      // The page says how it ranked: a fused side that fell back to BM25 would measure the wrong thing.
      const rankedBy = (page as { ranking?: string }).ranking;
      if (rankedBy !== side.rankedBy) throw new Error(`the service ranked by ${rankedBy}, not ${side.rankedBy}`);
      const documents = documentRanking(
        side,
        page.data.map((hit) => hit.file_id),
      );
      ndcg += ndcgAt(documents, judged, 10);
      recallService += recallAt(documents, judged, SERVICE_MAX);
      distinct += documents.length;
      // Beyond the service's limit: the same index, asked in process for the published depth.
      const [vector] = embedder ? await embedder.embed([query.text]) : [];
      const deep = index.search(query.text, { maxResults: INDEX_DEPTH, ...(vector ? { queryVector: normalize(vector) } : {}) });
      recallIndex += recallAt(
        documentRanking(
          side,
          deep.map((hit) => hit.fileId),
        ),
        judged,
        INDEX_DEPTH,
      );
    }
  } finally {
    await client.close();
  }
  const n = collection.queries.length;
  return {
    ndcg10: ndcg / n,
    recallService: recallService / n,
    recallIndex: recallIndex / n,
    documentsPerSearch: distinct / n,
    querySeconds: (nowMs() - started) / 1000,
  };
}

async function withBackends<T>(run: (keyword: RunningBackend, fused: RunningBackend) => Promise<T>): Promise<T> {
  // The in-process backends convert in worker threads whose script sits next to this bundle.
  copyFileSync(path.join(repoRoot, 'dist/convert-worker.js'), path.join(__dirname, 'convert-worker.js'));
  const dirs = [0, 1].map(() => mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-beir-')));
  const keyword = await startBackend({ dataDir: dirs[0]!, token: TOKEN, apiKey: TOKEN, rateLimits: false });
  let fused: RunningBackend | undefined;
  try {
    // The fused side embeds through an upstream: the keyword backend's gateway serves the local embedding model.
    fused = await startBackend({
      dataDir: dirs[1]!,
      token: TOKEN,
      apiKey: TOKEN,
      rateLimits: false,
      upstream: { url: keyword.url, key: TOKEN, embeddingModel: LOCAL_EMBEDDING_MODEL },
    });
    return await run(keyword, fused);
  } finally {
    await fused?.close();
    await keyword.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

const f3 = (n: number) => n.toFixed(3);

async function run(): Promise<BenchResult | undefined> {
  const folder = process.env.DOCCHAT_BEIR;
  if (!folder || !existsSync(path.join(folder, 'corpus.jsonl'))) {
    progress(
      `${folder ? `DOCCHAT_BEIR=${folder} holds no corpus.jsonl` : 'DOCCHAT_BEIR is not set'}: skipped. ` +
        `Download a BEIR dataset (SciFact: ${DOWNLOAD}), unzip it outside the repository and run ` +
        '`DOCCHAT_BEIR=/path/to/scifact npm run bench -- beir` (the folder holds corpus.jsonl, queries.jsonl and qrels/test.tsv).',
    );
    return undefined;
  }
  const collection = readCollection(folder);
  const judgedDocs = new Set([...collection.judgements.values()].flatMap((j) => [...j.keys()]));
  const ids = new Set(collection.documents.map((d) => d.id));
  const missing = [...judgedDocs].filter((id) => !ids.has(id)).length;
  progress(`${collection.name}: ${collection.documents.length} documents, ${collection.queries.length} test queries`);

  return withBackends(async (keywordBackend, fusedBackend) => {
    const sides = [
      { label: 'DocChat keyword only (BM25)', short: 'keyword only', backend: keywordBackend, rankedBy: 'bm25', format: 'markdown' },
      {
        label: 'DocChat keyword only, plain-text files (title as the first line)',
        short: 'keyword only, plain text',
        backend: keywordBackend,
        rankedBy: 'bm25',
        format: 'text',
      },
      {
        label: `DocChat fused (BM25 + ${LOCAL_EMBEDDING_MODEL}, RRF)`,
        short: 'fused',
        backend: fusedBackend,
        rankedBy: 'hybrid',
        format: 'markdown',
      },
    ] as const;
    const measured: { label: string; short: string; side: Side; scores: Scores }[] = [];
    for (const { label, short, backend, rankedBy, format } of sides) {
      const side = await ingest(backend, rankedBy, format, collection, short);
      progress(`${short}: searching`);
      measured.push({ label, short, side, scores: await evaluate(side, collection) });
    }
    const [keyword, , fusedSide] = measured;
    const published = PUBLISHED[collection.name];
    const pub = published?.multifield;
    const rows: (string | number)[][] = measured.map(({ label, scores }) => [
      label,
      f3(scores.ndcg10),
      pub ? ratio(scores.ndcg10, pub.ndcg10) : 'n/a',
      f3(scores.recallService),
      f3(scores.recallIndex),
      pub ? ratio(scores.recallIndex, pub.recall100) : 'n/a',
    ]);
    if (published) {
      rows.push(
        [
          'published BM25, multifield (BEIR paper)',
          f3(published.multifield.ndcg10),
          '1.00×',
          '—',
          f3(published.multifield.recall100),
          '1.00×',
        ],
        [
          'published BM25, flat (Anserini)',
          f3(published.flat.ndcg10),
          ratio(published.flat.ndcg10, published.multifield.ndcg10),
          '—',
          f3(published.flat.recall100),
          ratio(published.flat.recall100, published.multifield.recall100),
        ],
      );
    }
    const quality: Table = {
      caption: `${collection.name} test split: ${collection.queries.length} queries over ${collection.documents.length.toLocaleString('en')} documents (BEIR's nDCG@10 and recall, documents ranked by their best chunk)`,
      columns: [
        'ranking',
        'nDCG@10',
        'nDCG@10 ÷ published',
        `Recall@${SERVICE_MAX} (service, max_num_results ${SERVICE_MAX})`,
        `Recall@${INDEX_DEPTH} (same index, in process)`,
        `Recall@${INDEX_DEPTH} ÷ published`,
      ],
      rows,
    };
    const cost: Table = {
      caption: 'Ingest and search on this machine',
      columns: [
        'ranking',
        'chunks',
        'ingest (upload → convert → chunk → embed → index), s',
        `${collection.queries.length} searches over HTTP + ${collection.queries.length} in process, s`,
        `documents per search of ${SERVICE_MAX} results`,
      ],
      rows: measured.map(({ short, side, scores }) => [
        short,
        side.chunks,
        side.ingestSeconds.toFixed(1),
        scores.querySeconds.toFixed(1),
        scores.documentsPerSearch.toFixed(1),
      ]),
    };
    const ks = keyword!.scores;
    const fusedScores = fusedSide!.scores;
    const goalMet = pub ? ks.ndcg10 >= 0.95 * pub.ndcg10 : undefined;
    return {
      id: 'beir',
      title: `Retrieval quality on BEIR ${collection.name}`,
      goal: 'Retrieval quality on a public test collection with published BM25 figures, keyword only and fused; keyword search at least 0.95× the published BM25 nDCG@10.',
      method:
        `Each document is one file, as a user attaches them: markdown \`<id>.md\` with the title as its heading and the text below (and, for the plain-text row, \`<id>.txt\` with the title as its first line), uploaded and attached through the embedded backend's documents service (convert, chunk, index); each test query is searched over HTTP with DocumentsClient at max_num_results ${SERVICE_MAX}, the service's maximum, so recall is at ${SERVICE_MAX}; recall at ${INDEX_DEPTH}, the published depth, asks the same store index in process. ` +
        `The fused backend embeds chunks and queries with \`${LOCAL_EMBEDDING_MODEL}\` (hashed words, word pairs and character trigrams: lexical, not a neural model), the only embedding model reachable here, served by the other backend's gateway as its upstream.`,
      tables: [quality, cost],
      notes: [
        ...(published ? [`Published figures: ${published.multifield.source}; flat: ${published.flat.source}.`] : []),
        ...(goalMet === undefined
          ? []
          : [
              goalMet
                ? `Goal met: keyword nDCG@10 ${ratio(ks.ndcg10, pub!.ndcg10)} the published BM25.`
                : `Goal **NOT** met: keyword nDCG@10 is ${ratio(ks.ndcg10, pub!.ndcg10)} the published BM25.`,
            ]),
        ...(fusedScores.ndcg10 < ks.ndcg10
          ? [
              `Fused ranks below keyword only (nDCG@10 ${ratio(fusedScores.ndcg10, ks.ndcg10)}): \`${LOCAL_EMBEDDING_MODEL}\` scores the same words as BM25 without their rarity (no inverse document frequency), hashed into 256 dimensions, so its ranking alone is much weaker than BM25's, and reciprocal rank fusion weighs the two rankings equally. Fusion is meant for a neural embedding model from an upstream; Local mode without one searches by BM25 alone.`,
            ]
          : []),
        ...(missing ? [`${missing} judged documents are missing from corpus.jsonl.`] : []),
      ],
    };
  });
}

main(run);
