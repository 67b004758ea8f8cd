/**
 * The floor of the search result lists (the quick pick and `@docchat /search`): of the first 10
 * results of a search (the default "search result count"), how many relevant hits each relative
 * floor would leave out, against how many irrelevant ones it removes, after near-duplicates are
 * collapsed. On the demo documents' judged questions (a hit is relevant when it holds the
 * question's phrase) and, with DOCCHAT_BEIR=/path/to/scifact, on BEIR SciFact's test queries (a
 * hit is relevant when its document is judged relevant). Keyword and fused ranking, in process.
 * Run: `npx tsx test/bench/resultFloor.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chunkMarkdown } from '../../src/backend/chunking/chunker';
import { hashingEmbedding } from '../../src/backend/gateway/localEmbedding';
import { documentTitle, indexedText, normalize, StoreIndex } from '../../src/backend/search/storeIndex';
import { shapeResults } from '../../src/chatCore/resultShaping';
import { repoRoot } from './lib/backendProcess';

const MAX_RESULTS = 10;
const FLOORS = [0, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5];

interface Query {
  query: string;
  relevant(hit: { fileId: string; text: string }): boolean;
}

function index(files: { id: string; name: string; text: string }[], fused: boolean): StoreIndex {
  const store = new StoreIndex();
  for (const file of files) {
    const chunks = chunkMarkdown(file.text);
    const title = documentTitle(file.name);
    store.addFile(file.id, chunks, fused ? chunks.map((c) => normalize(hashingEmbedding(indexedText(c, title)))) : undefined, title);
  }
  return store;
}

function measure(label: string, store: StoreIndex, queries: Query[], fused: boolean): void {
  const lists = queries.map((q) => {
    const hits = store.search(q.query, {
      maxResults: MAX_RESULTS,
      ...(fused ? { queryVector: normalize(hashingEmbedding(q.query)) } : {}),
    });
    return { q, hits: shapeResults(hits, (h) => ({ fileId: h.fileId, content: h.text, score: h.score }), q.query, 0).shown };
  });
  const all = lists.flatMap(({ q, hits }) => hits.map((h) => q.relevant(h)));
  console.log(`\n${label}: ${queries.length} queries, ${all.length} hits after collapsing, ${all.filter(Boolean).length} relevant`);
  console.log(
    '| floor | relevant hits dropped | irrelevant hits removed | queries left with no relevant hit that had one | rows per search |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const floor of FLOORS) {
    let lostRelevant = 0;
    let removedIrrelevant = 0;
    let queriesLost = 0;
    let rows = 0;
    for (const { q, hits } of lists) {
      const kept = new Set(shapeResults(hits, (h) => ({ fileId: h.fileId, content: h.text, score: h.score }), q.query, floor).shown);
      rows += kept.size;
      const dropped = hits.filter((h) => !kept.has(h));
      lostRelevant += dropped.filter((h) => q.relevant(h)).length;
      removedIrrelevant += dropped.filter((h) => !q.relevant(h)).length;
      if (hits.some((h) => q.relevant(h)) && ![...kept].some((h) => q.relevant(h))) queriesLost++;
    }
    const relevantTotal = all.filter(Boolean).length;
    const irrelevantTotal = all.length - relevantTotal;
    console.log(
      `| ${floor.toFixed(2)} | ${lostRelevant}/${relevantTotal} | ${removedIrrelevant}/${irrelevantTotal} | ${queriesLost} | ${(rows / lists.length).toFixed(1)} |`,
    );
  }
}

const collection = JSON.parse(readFileSync(path.join(repoRoot, 'test/bench/retrieval/conversations.json'), 'utf8')) as {
  documents: string[];
  standalone: { question: string; needs: string }[];
  heldOut: { standalone: { question: string; needs: string }[] };
};
const demo = collection.documents.map((name, i) => ({ id: `file-${i}`, name, text: readFileSync(path.join(repoRoot, name), 'utf8') }));
const demoQueries: Query[] = [...collection.standalone, ...collection.heldOut.standalone].map((q) => ({
  query: q.question,
  relevant: (hit) => hit.text.includes(q.needs),
}));
for (const fused of [false, true]) {
  measure(`Demo documents, ${fused ? 'fused' : 'keyword'}`, index(demo, fused), demoQueries, fused);
}

const beir = process.env.DOCCHAT_BEIR;
if (beir && existsSync(path.join(beir, 'corpus.jsonl'))) {
  const lines = (file: string) => readFileSync(path.join(beir, file), 'utf8').split('\n').filter(Boolean);
  const corpus = lines('corpus.jsonl').map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
  const judged = new Map<string, Set<string>>();
  for (const row of lines('qrels/test.tsv').slice(1)) {
    const [query, doc, score] = row.split('\t');
    if (Number(score) > 0) judged.set(query!, (judged.get(query!) ?? new Set()).add(doc!));
  }
  const queries = lines('queries.jsonl')
    .map((l) => JSON.parse(l) as { _id: string; text: string })
    .filter((q) => judged.has(q._id))
    .map((q): Query => ({ query: q.text, relevant: (hit) => judged.get(q._id)!.has(hit.fileId) }));
  const files = corpus.map((d) => ({ id: d._id, name: `${d._id}.md`, text: `# ${d.title}\n\n${d.text}` }));
  measure(`BEIR ${path.basename(beir)} (test), keyword`, index(files, false), queries, false);
}
