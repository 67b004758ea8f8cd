import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { answer, answeredText, collectSources, parseMessage, type PlainMessage } from '../../../../src/backend/gateway/extractive';
import {
  answerRoot,
  askedFor,
  closeness,
  codeShare,
  englishRarity,
  leansOnConversation,
  namesNear,
  questionType,
  queryWeights,
  type Scored,
  selectUnits,
  startsMidSentence,
  withFirstQuote,
} from '../../../../src/backend/gateway/answerScoring';
import {
  isRunOn,
  lineGroups,
  linesStandAlone,
  rowCells,
  RUN_ON_CHARS,
  textQuality,
  unitsOf,
  wordlikeShare,
} from '../../../../src/backend/gateway/answerUnits';
import { citedSources, citedStatements } from '../../../../src/chatCore/citations';
import { numberSources } from '../../../../src/chatCore/grounding';
import { buildChatMessages } from '../../../../src/chatCore/promptBuilder';
import type { PassageSource } from '../../../../src/chatCore/protocol';
import { isProseLayout } from '../../../../src/common/proseLayout';
import { matchRoot } from '../../../../src/common/terms';
import { noSourcesAnswer } from '../../../../src/features/chat/answerGenerator';

/** The system prompt the chat sends: numbered sources, each a title line and its text. */
function grounded(sources: string[], ...turns: string[]): PlainMessage[] {
  const system = `Answer from the sources and cite them.\n\nSources:\n\n${sources.map((s, i) => `[${i + 1}] ${s}`).join('\n\n')}`;
  const messages: PlainMessage[] = [{ role: 'system', content: system }];
  turns.forEach((turn, i) => messages.push({ role: i % 2 ? 'assistant' : 'user', content: turn }));
  return messages;
}

/** The first line of the answer's quotes (after "From the supplied sources:"). */
function firstQuote(text: string): string {
  return (text.split('\n\n')[1] ?? '').split('\n')[0]!;
}

const TESTED_VERSIONS = `testing.md
| target | VS Code | what runs there |
|---|---|---|
| newest | 1.139.1 | the whole suite: attach a file, search, one chat answer |
| oldest | 1.104.0 | the whole smoke test: attach a file and search it |`;

const FOLDER_SYNC = `folders.md
## Folder sync
- **Sync Folder to Vector Store…** (a folder's Explorer context menu, or the command palette) picks
  or creates the store, then compares the folder with it.
- Each synced store file carries two metadata pairs: the path and the content hash of the file.`;

const SETTINGS = `settings.md
## Settings
| setting | default | what it does |
|---|---|---|
| \`docchat.stores.pageSize\` | \`50\` | stores / files loaded per page in the tree |
| \`docchat.search.maxResults\` | \`10\` | results of a search (1–50) |
| \`docchat.sync.watch\` | \`false\` | re-sync a followed folder when its files change |`;

describe('local-extractive: quotes that answer the question', () => {
  it('quotes a piece of a sentence longer than the answer may quote, not the whole run-on', () => {
    // One line of 200,000 words without a sentence break; the words the question asks about sit in the middle.
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(' ');
    const runOn = `${filler(100_000)} the retention period for audit logs is ninety days ${filler(100_000)}`;
    const text = answer(grounded([`logs.md\n${runOn}`], 'What is the retention period for audit logs?'));
    assert.match(text, /retention period for audit logs is ninety days/);
    assert.ok(text.length < 2_000, `the answer is ${text.length} characters long`);
  });

  it('a how-to question quotes the step, not a table that shares its words', () => {
    const text = answer(grounded([TESTED_VERSIONS, FOLDER_SYNC], 'How do I attach a whole folder?'));
    assert.match(
      firstQuote(text),
      /^- "\*\*Sync Folder to Vector Store…\*\* \(a folder's Explorer context menu, or the command palette\) picks or creates the store, then compares the folder with it\." \[2\]$/,
    );
    assert.ok(!text.includes('1.104.0'), `the table of tested versions is not quoted:\n${text}`);
    assert.deepEqual(citedSources(text, 2), [2], 'only the quoted source is cited');
  });

  it('quotes a table row as a table, with its header, and cites it below the table', () => {
    const text = answer(grounded([FOLDER_SYNC, SETTINGS], 'What is the default page size of the tree?'));
    const table = [
      '| setting | default | what it does |',
      '|---|---|---|',
      '| `docchat.stores.pageSize` | `50` | stores / files loaded per page in the tree |',
    ];
    assert.ok(text.includes(`${table.join('\n')}\n\n[2]`), `the row is quoted as a markdown table:\n${text}`);
    assert.ok(!/"\|/.test(text), 'no table row is quoted as flattened pipe text');
  });

  it('quotes a table row whose header the source does not hold as its cells, like a sentence, cited on its line', () => {
    // A passage that starts inside a table: its rows come without the header and separator lines.
    const rows =
      'api.md\n| `response_format.type` beyond text | `json_schema` is refused with a clear error | — |\n| attachments of images | refused: text formats only | — |';
    const text = answer(grounded([FOLDER_SYNC, rows], 'Which response_format types are refused?'));
    assert.match(
      firstQuote(text),
      /^- "`response_format\.type` beyond text · `json_schema` is refused with a clear error · —" \[2\]$/,
      text,
    );
    assert.ok(!/^\|/m.test(text), `no row is quoted as a bare line of pipes:\n${text}`);
    assert.ok(!/^\[\d+\]$/m.test(text), `no citation stands on its own line:\n${text}`);
    assert.equal(rowCells('| `a \\| b` | | c |'), '`a \\| b` · c', 'an escaped pipe stays in its cell; an empty cell is left out');
  });

  it('cites only the sources it quotes, and leaves out sentences that share one common word', () => {
    const text = answer(
      grounded(
        [
          'models.md\nIn Local mode the built-in local-extractive model answers by quoting the sources. It never generates text.',
          'picker.md\nThe picker lists each model of the gateway, and the answers stream as they are generated.',
          'accessibility.md\nIn high contrast mode every answer keeps its borders.',
          'status.md\nThe status bar shows Local while the backend starts.',
        ],
        'Which model answers in Local mode?',
      ),
    );
    assert.match(firstQuote(text), /local-extractive model answers by quoting the sources\." \[1\]/);
    assert.deepEqual(citedSources(text, 4), [1], `only the source that answers is quoted and cited:\n${text}`);
  });

  it('a quoted "[2]" reads as written and is not taken for a citation of the answer', () => {
    const text = answer(
      grounded(
        [
          'changelog.md\nThe sources list now orders citations by number, citing [2] before [3, 4] wherever an answer names them.',
          'other.md\nThe status bar shows Local while the backend starts.',
        ],
        'How does the sources list order citations?',
      ),
    );
    assert.match(text, /citing \\\[2\\\] before \\\[3, 4\\\] wherever/, text);
    assert.deepEqual(citedSources(text, 4), [1], `only the quoted source is cited:\n${text}`);
    assert.deepEqual(citedStatements(text, 2, 4), [], 'the quoted "[2]" cites nothing');
  });

  it('a question naming a file among the sources is answered from that file, whatever was asked before', () => {
    const ledgers = [4, 2, 3].map((n) => `ledgers/ledger${n}.md\nLedger ${n} keeps records for ${n + 5} years.`);
    const text = answer(
      grounded(
        ledgers,
        'How many years does ledger 4 keep records?',
        'From the supplied sources:\n\n- "Ledger 4 keeps records for 9 years." [1]',
        'What is in ledger2.md?',
      ),
    );
    assert.match(firstQuote(text), /Ledger 2 keeps records for 7 years\." \[2\]/, text);
    assert.deepEqual(citedSources(text, 3), [2], `only the file named is quoted:\n${text}`);
  });

  it("a question naming a file whose words it does not share quotes the file's opening sentence", () => {
    const text = answer(
      grounded(['ledger2.md (score 0.17)\nLedger 2 keeps records for 7 years. It is audited each spring.'], 'What is in ledger2.md?'),
    );
    assert.match(firstQuote(text), /Ledger 2 keeps records for 7 years\." \[1\]/, text);
  });

  it('a follow-up uses the earlier question to know what "it" is', () => {
    const text = answer(
      grounded(
        [
          'theme.md\nTo change the colours, change the theme in the settings.',
          'models.md\nRun **Use a Language Model…** to change the model that answers in Local mode.',
        ],
        'Which model answers in Local mode?',
        'From the supplied sources: …',
        'and how do I change it?',
      ),
    );
    assert.match(firstQuote(text), /Use a Language Model…\*\* to change the model that answers in Local mode\." \[2\]$/);
  });

  it('a sentence held by two overlapping sources is quoted once', () => {
    const shared = 'Backups are kept for thirty days in the vault.';
    const text = answer(grounded([`a.md\n${shared} Restores need a ticket.`, `b.md\n${shared}`], 'How long are backups kept?'));
    assert.equal(text.split(shared).length - 1, 1, text);
  });

  it('a "why" question quotes the reason after the sentence that names the topic', () => {
    const text = answer(
      grounded(
        [
          'backend.md\nThe HTTP layer is hand-written. Frameworks were measured first, and none gave the security guarantees without the same hooks.\n\nThe router is 450 lines.',
        ],
        'Why is the HTTP layer hand-written?',
      ),
    );
    assert.match(
      firstQuote(text),
      /^- "The HTTP layer is hand-written\. Frameworks were measured first, and none gave the security guarantees without the same hooks\." \[1\]$/,
    );
  });

  it("a line of a source's code block that looks like a marker is the source's text, not a new source", () => {
    const transcript =
      'agents.md\nAn agent searches, then reads the file it found:\n\n```text\n[1] holidays.md (score 0.83) · read: {"store":"handbook"}\nEveryone has 30 days of leave a year.\n```';
    const { sources } = parseMessage(grounded([FOLDER_SYNC, transcript])[0]!.content);
    assert.deepEqual(
      sources.map((s) => [s.n, s.title]),
      [
        [1, 'folders.md'],
        [2, 'agents.md'],
      ],
    );
    assert.ok(sources[1]!.text.includes('[1] holidays.md (score 0.83)'), 'the transcript stays in the source that holds it');
    const text = answer(grounded([FOLDER_SYNC, transcript], 'How do I attach a whole folder?'));
    assert.match(firstQuote(text), /Sync Folder to Vector Store…\*\* \(a folder's Explorer context menu/);
  });

  it('a number given twice in one message does not replace the source that has it', () => {
    const { sources } = parseMessage('Sources:\n\n[1] guide.md\nRun the sync.\n\n[2] notes.md\nSee the list:\n[1] a footnote\n');
    assert.deepEqual(
      sources.map((s) => [s.n, s.title, s.text]),
      [
        [1, 'guide.md', 'Run the sync.'],
        [2, 'notes.md', 'See the list:\n[1] a footnote'],
      ],
    );
  });

  it('a passage of measurements weighs less than prose with the same words, for a question not about a number', () => {
    const measurements = 'benchmarks.md\nAttaching a folder to a store: 33.4 min, p95 2.9 s.';
    const prose = 'guide.md\nAttaching a folder to a store uploads each of its files once and keeps their paths as metadata.';
    const text = answer(grounded([measurements, prose], 'What happens when I attach a folder to a store?'));
    assert.match(firstQuote(text), /uploads each of its files once and keeps their paths as metadata\." \[2\]$/, text);
  });

  it('a passage of measurements still answers a question for a number', () => {
    const measurements = 'benchmarks.md\nAttaching a folder of 1,000 files took 33.4 min on 2 cores.';
    const prose = 'guide.md\nTo attach a folder, run **Sync Folder to Vector Store…** from its context menu.';
    const text = answer(grounded([prose, measurements], 'How long does attaching a folder of 1,000 files take?'));
    assert.match(firstQuote(text), /33\.4 min on 2 cores\." \[2\]$/, text);
  });

  it('a how-to question quotes the instructions, not a changelog entry that names the same command', () => {
    const changelog =
      "CHANGELOG.md\n### Added\n\n- Attach Files… from the Explorer context menu and a store's menu, several files at once, with a recent-first store picker.\n- Search quick pick with results as you type.";
    const guide = 'guide.md\n## Files\n\nRight-click the files in the Explorer and choose **Attach Files…**, then pick the store.';
    const text = answer(grounded([changelog, guide], 'How do I attach files from the Explorer to a store?'));
    assert.match(firstQuote(text), /choose \*\*Attach Files…\*\*, then pick the store\." \[2\]$/, text);
    const changes = answer(grounded([changelog, guide], 'What was added to attaching files?'));
    assert.match(
      firstQuote(changes),
      /several files at once, with a recent-first store picker\." \[1\]$/,
      'a question about changes still quotes the list of changes',
    );
  });

  it("weighs a question's everyday words less than its subject, which every source holds", () => {
    // The search sent these for "OCR": among the sources it is the common word and "turn" the rare
    // one, but in everyday English it is the other way round, and the subject decides.
    const sources = [
      'chat.md\nThe chat keeps its conversations per workspace. Each answer streams into the panel. The chat posts each turn to the panel. Sources are listed under the answer.',
      'ocr.md\nOCR reads scanned pages and pictures. The engine runs on its own thread. OCR of a large scan takes a while. Four languages are shipped.',
      'attach.md\nAttach Files asks which store to use. To attach a scan without OCR, choose Skip OCR when asked. The file is converted in the background.',
    ];
    const text = answer(grounded(sources, 'How do I turn off OCR?'));
    assert.match(firstQuote(text), /choose Skip OCR when asked\." \[3\]$/, text);
  });

  it("a word's rarity in everyday English: 1 for words the list lacks, less for common ones, the same for each form", () => {
    const rarity = (word: string) => englishRarity(answerRoot(word));
    assert.equal(rarity('ocr'), 1);
    assert.equal(rarity('docchat'), 1);
    assert.ok(rarity('get') < rarity('turn') && rarity('turn') < rarity('folder') && rarity('folder') < 1, 'get < turn < folder < 1');
    assert.ok(rarity('get') > 0);
    assert.equal(rarity('saved'), rarity('save'));
    assert.equal(rarity('folders'), rarity('folder'));
  });

  it('the English word counts are what scripts/englishWordCounts.mjs writes from the word list', async () => {
    const { englishWordCountsModule, TARGET } = await import('../../../../scripts/englishWordCounts.mjs');
    assert.equal(readFileSync(TARGET, 'utf8').replace(/\r\n/g, '\n'), await englishWordCountsModule(), 'run `npm run english-word-counts`');
  });

  it('a follow-up with one word of its own takes its subject from the question before', () => {
    const text = answer(
      grounded(
        [
          'mcp.md\nTools that change anything are offered only when you turn on the allowChanges setting.',
          'CHANGELOG.md\nAll notable changes are documented here.',
          'models.md\nRun **Use a Language Model…** to pick another model for Local mode.',
        ],
        'Which model answers in Local mode?',
        'From the supplied sources: …',
        'and how do I change it?',
      ),
    );
    assert.match(firstQuote(text), /Use a Language Model…\*\* to pick another model for Local mode\." \[3\]$/, text);
    assert.deepEqual(citedSources(text, 3), [3], `sentences holding only "change" are not quoted:\n${text}`);
  });

  // The inputs of these tests are large enough that a quadratic reading would run for minutes,
  // past the suite's timeout; read in linear time, they take a moment.
  it('reads a line of "source" followed by a long run of spaces in linear time', () => {
    const line = `source${' '.repeat(500_000)}x`;
    const parsed = parseMessage(`${line}\n${line}`);
    assert.equal(parsed.sources.length, 0);
  });

  it('reads a source table line ending in a long run of spaces in linear time', () => {
    const text = answer(grounded([`table.md\n| a | b |\n|--${' '.repeat(400_000)}x|\n| one | two |`], 'What is one?'));
    assert.ok(text.length > 0);
  });
});

describe('local-extractive: OCR noise of a scanned page is not quoted as a sentence', () => {
  /** The header of a scanned report as OCR reads it: lines of fragments, stray letters and symbols, no sentence punctuation. */
  const OCR_HEADER = [
    "ST MARY'S HOSP1TAL | Dept of lnternal Med1cine ~ PATIENT RECORD l l ' |",
    'Pat1ent diagnosis rep0rt — MRN 00-442-19 Wd 4B Rm 12 ~~ i I| , , ; Attending K0wa1ski R',
    "Fax (555) 010-2231 ' ; ; I l1 II | Rep0rt dat e 2023-11-04 pg 1 / 3 ~ = == ^ medical rec0rds un1t",
    'Diagnosis cod e E11 9 ICD l0 ~ | | patient diagnosis sum mary ' + "' ; ; l1 ".repeat(6),
  ].join('\n');
  const SCAN = `scan-0412.pdf\n${OCR_HEADER}\n\nThe patient was diagnosed with type 2 diabetes in March 2019 and started on metformin.`;

  it('quotes the sentence that answers, not the noisy header that shares its words', () => {
    const text = answer(grounded([SCAN], 'What is the patient diagnosis?'));
    assert.match(firstQuote(text), /^- "The patient was diagnosed with type 2 diabetes/);
    assert.doesNotMatch(text, /HOSP1TAL|K0wa1ski|l1 II/, 'no OCR noise is quoted');
  });

  it('quotes nothing of a source that is only noise when a clean source answers, and does not cite it', () => {
    const clean = 'report.md\nThe patient diagnosis is type 2 diabetes, confirmed by two HbA1c tests.';
    const text = answer(grounded([`scan-0412.pdf\n${OCR_HEADER}`, clean], 'What is the patient diagnosis?'));
    assert.match(firstQuote(text), /^- "The patient diagnosis is type 2 diabetes/);
    assert.deepEqual(citedSources(text, 2), [2], 'a source that gives no quote is not cited');
  });

  it('splits a run of lines without sentence punctuation at its line breaks', () => {
    const runOn = Array.from({ length: 8 }, (_, i) => `quarterly budget figures for region ${i + 1} and the forecast`).join('\n');
    const units = unitsOf({ n: 1, text: runOn });
    assert.equal(units.length, 8);
    assert.ok(units.every((u) => u.text.length < RUN_ON_CHARS));
  });

  it('weighs prose, names and figures fully and OCR noise far down', () => {
    assert.equal(textQuality('Set `docchat.search.maxResults` to 10 (the default is 5), see [Settings](docs/settings.md).'), 1);
    assert.equal(textQuality('Follow-ups, DocChat minus the message: Recall@5 +0.068 [+0.041, +0.095].'), 1);
    assert.ok(textQuality("Fax (555) 010-2231 ' ; ; I l1 II | Rep0rt dat e 2023-11-04 pg 1 / 3 ~ = == ^") < 0.5);
    assert.ok(wordlikeShare("' ; ; l1 | ~ I| K0wa1ski ^ ==") < 0.3);
    const runOnLine = 'word '.repeat(120).trim();
    assert.ok(isRunOn(runOnLine) && textQuality(runOnLine) < 0.6, 'a single line far longer than a sentence weighs less');
  });
});

describe('local-extractive: a block of short lines (a receipt, a form) is quoted line by line', () => {
  const RECEIPT = [
    'NORTHWIND HARDWARE',
    '18 Harbour Road',
    'Store #0117 - Quayside',
    'Cashier: Lena Brandt',
    'Cordless Drill 18V',
    'TOOL-4410 1 @ $89.00',
    'Wood Screws 200 pcs',
    'FIX-0192 2 @ $6.50',
    'SUBTOTAL $102.00',
    'Sales Tax (8%) $8.16',
    'TOTAL $110.16',
    'Visa Card ending in 0931',
    'Returns within 30 days, receipt required',
  ].join('\n');
  const WRAPPED = [
    'The quarterly report covers the budget of every region and the forecast for the next year, with the',
    'figures the finance team agreed on in March and the changes the board asked for in its last meeting.',
    'Regions that missed their target explain why in the appendix.',
  ].join('\n');
  const COLUMN = [
    'The institute opened its doors',
    'last week with the arrival of',
    'its participants, eight experienced',
    'professors and four graduate',
    'assistants from France.',
  ].join('\n');

  it('tells a block of short lines from prose wrapped to a width or to a narrow column', () => {
    assert.equal(linesStandAlone(RECEIPT.split('\n')), true);
    assert.equal(linesStandAlone(WRAPPED.split('\n')), false, 'wrapped prose runs to the width');
    assert.equal(linesStandAlone(COLUMN.split('\n')), false, 'a narrow column carries its sentences on in lower case');
    assert.equal(linesStandAlone(['Name: Lena', 'Store: 0117']), false, 'two lines are too few to tell');
  });

  it('joins a line that opens in lower case to the one before it', () => {
    assert.deepEqual(lineGroups(['Notes', 'Paid in full on', 'the day of delivery.', 'Thank you!']), [
      'Notes',
      'Paid in full on the day of delivery.',
      'Thank you!',
    ]);
  });

  it('makes each line of a receipt a unit, and keeps wrapped prose as its sentences', () => {
    const lines = unitsOf({ n: 1, text: RECEIPT }).map((u) => u.text);
    assert.ok(lines.includes('TOTAL $110.16') && lines.includes('Cashier: Lena Brandt'), lines.join(' | '));
    assert.equal(lines.length, 13);
    assert.deepEqual(
      unitsOf({ n: 1, text: WRAPPED }).map((u) => u.text.slice(0, 30)),
      ['The quarterly report covers th', 'Regions that missed their targ'],
    );
  });

  it('answers "What was the total on the receipt?" with the total line, not the whole receipt', () => {
    const text = answer(grounded([`receipt-0117.md\n${RECEIPT}`], 'What was the total on the receipt?'));
    assert.equal(firstQuote(text), '- "TOTAL $110.16" [1]');
    assert.ok(text.length < 300, text);
  });

  it('quotes no picture: a paragraph of images only is no sentence, a sentence around one still is', () => {
    const text =
      '![The chat in the dark theme, answering with citations](media/chat-dark.png)\n\nThe chat cites its sources ![icon](i.png) as links.';
    assert.deepEqual(
      unitsOf({ n: 1, text }).map((u) => u.text),
      ['The chat cites its sources ![icon](i.png) as links.'],
    );
  });

  it("counts the source's file name as the heading of each of its units", () => {
    const [unit] = unitsOf({ n: 1, text: 'TOTAL $110.16', title: 'receipt-0117.md' });
    assert.ok(unit!.heading.includes('receipt'), unit!.heading.join(' '));
    assert.ok(!unit!.heading.includes('md'), 'the extension is not a word of the title');
  });

  it('reads "what was the total/amount/price…" as a question for a quantity', () => {
    assert.equal(questionType('What was the total on the receipt?'), 'quantity');
    assert.equal(questionType('What is the price of the drill?'), 'quantity');
    assert.equal(questionType('What is the store called?'), 'choice');
  });
});

describe('local-extractive: which sentence answers, by word roots and by how close the words stand', () => {
  const ENGINES = `engines.md
| engine | modes | notes |
|---|---|---|
| \`lite\` | offline, online | the default engine for pages of every kind and size, with a model server used in either mode only when one runs on this machine; answers are kept on disk, and a second offline engine is optional |`;
  const OFFLINE = `offline.md
In Offline mode the built-in \`lite\` engine answers every question from the pages kept on disk, with a citation for each page it quotes.`;

  it('quotes first, and cites, the sentence whose question words stand together, not a row that scatters them', () => {
    const text = answer(grounded([ENGINES, OFFLINE], 'Which engine answers in Offline mode?'));
    assert.match(firstQuote(text), /^- "In Offline mode the built-in `lite` engine answers every question/);
    assert.match(firstQuote(text), /\[2\]$/, `the first quote cites the source it comes from:\n${text}`);
  });

  it('matches a word by its root: "attaching" answers "attach"', () => {
    const text = answer(
      grounded(
        [
          'pages.md\nA scanned page can be large, and a page of a scan is an image.',
          'ocr.md\nAttaching a scanned page runs OCR on it first.',
        ],
        'How do I attach a scanned page?',
      ),
    );
    assert.match(firstQuote(text), /^- "Attaching a scanned page runs OCR on it first\." \[2\]$/, text);
  });

  it('matches a four-letter word across its endings as longer words are: "save" meets "saved" and "saving"', () => {
    assert.equal(answerRoot('save'), answerRoot('saved'));
    assert.equal(answerRoot('save'), answerRoot('saving'));
    assert.equal(answerRoot('type'), answerRoot('typed'));
    assert.equal(answerRoot('name'), answerRoot('named'));
    assert.equal(answerRoot('stop'), answerRoot('stops'));
    assert.equal(answerRoot('close'), answerRoot('closed'));
    assert.equal(answerRoot('free'), 'free', 'a vowel before the final e keeps it');
  });

  it('quotes the sentence that holds the question\'s word in another form: "save" answers with "saved"', () => {
    const text = answer(
      grounded(
        [
          'view.md\nThe folder view lists each file of the folder.',
          'sync.md\nEvery file you saved in the folder is sent again a second later.',
        ],
        'Does the folder update when I save a file?',
      ),
    );
    assert.match(firstQuote(text), /^- "Every file you saved in the folder is sent again a second later\." \[2\]$/, text);
  });

  it('measures how close the question words stand: side by side, apart, or only one of them', () => {
    const wanted = new Set(['engine', 'offline']);
    assert.equal(closeness(['offline', 'engine', 'page'], wanted), 1);
    assert.equal(closeness(['offline', 'page', 'disk', 'engine', 'offline'], wanted), 2 / 2, 'the shortest run counts');
    assert.equal(closeness(['offline', 'page', 'disk', 'engine'], wanted), 2 / 4);
    assert.equal(closeness(['engine', 'page'], wanted), 0);
  });
});

describe('local-extractive: a passage that starts inside a sentence', () => {
  it("tells a sentence's cut-off tail from a whole sentence by its text", () => {
    const sentence = (text: string, listItem = false) => ({ kind: 'sentence' as const, text, listItem });
    assert.ok(startsMidSentence(sentence('is written before a request is answered; conversions finish after the restart).')));
    assert.ok(startsMidSentence(sentence('Conversions finish after the restart).')), 'a bracket closed that it never opened');
    assert.ok(!startsMidSentence(sentence('Conversions finish after the restart (or fail).')));
    assert.ok(!startsMidSentence(sentence('`npm start` seeds the demo store.')));
    assert.ok(!startsMidSentence(sentence('Press `)` to close.')), 'brackets in code marks are code');
    assert.ok(!startsMidSentence(sentence('converts PDF and Office files', true)), 'a list item may open in lower case');
    assert.ok(!startsMidSentence({ kind: 'row', text: '| a) | b |', listItem: false }));
  });

  it('quotes a whole sentence before the cut-off tail of one with the same words', () => {
    const text = answer(
      grounded(
        [
          'backend.md\nan answer being written stops when you press Escape).',
          'chat.md\nAn answer being written stops when you press Escape.',
        ],
        'How do I stop an answer while it is being written?',
      ),
    );
    assert.match(firstQuote(text), /^- "An answer being written stops when you press Escape\." \[2\]$/, text);
  });
});

describe('local-extractive: when a later quote is added', () => {
  const units = unitsOf({ n: 1, text: 'Backups are kept for thirty days. Restores need a ticket. The vault is in Zurich.' });
  const entry = (i: number, score: number, terms: string[]): Scored => ({ unit: units[i]!, score, terms });
  const texts = (picked: Scored[]) => picked.map((p) => p.unit.text);

  it('quotes a later sentence that holds a word of the question down to 0.55 of the best score, not below', () => {
    assert.deepEqual(texts(selectUnits([entry(0, 1, ['backup']), entry(1, 0.57, ['backup'])])), [units[0]!.text, units[1]!.text]);
    assert.deepEqual(texts(selectUnits([entry(0, 1, ['backup']), entry(1, 0.5, ['backup'])])), [units[0]!.text]);
  });

  it('quotes after the first no sentence that holds no word of the question itself, however close its score', () => {
    const picked = selectUnits([entry(0, 1, ['restor']), entry(1, 0.95, []), entry(2, 0.9, ['restor'])]);
    assert.deepEqual(texts(picked), [units[0]!.text, units[2]!.text]);
    assert.deepEqual(texts(selectUnits([entry(1, 1, [])])), [units[1]!.text], 'the best sentence is quoted all the same');
  });

  it("answers a follow-up without the sentences that only share the earlier question's words", () => {
    const text = answer(
      grounded(
        [
          'backups.md\nNightly backups are kept for thirty days in the vault. Backups of the mail server are encrypted.',
          'restores.md\nA restore of a backup needs a ticket to the help desk.',
        ],
        'How long are backups kept?',
        'From the supplied sources: …',
        'and restores?',
      ),
    );
    assert.match(firstQuote(text), /^- "A restore of a backup needs a ticket to the help desk\." \[2\]$/, text);
    assert.ok(!text.includes('thirty days'), `the sentence on how long backups are kept is not quoted again:\n${text}`);
    assert.deepEqual(citedSources(text, 2), [2], 'only the source that answers is cited');
  });
});

describe("local-extractive: a source's opening sentence", () => {
  const SYNC =
    'sync.md\nSync compares a folder with its vector store and uploads the files that changed. ' +
    'Files that changed since the last sync are uploaded again, and a folder that is followed syncs on its own.';

  it('quotes first the sentence a source opens with over a later one that holds the same question words', () => {
    const text = answer(grounded([SYNC], 'What does sync do with a folder?'));
    assert.match(firstQuote(text), /^- "Sync compares a folder with its vector store and uploads the files that changed\." \[1\]$/, text);
  });
});

describe('local-extractive: a "which X" question quotes the sentence naming X first', () => {
  const MENU = `menu.md
**Use a Remote Engine…** (Offline mode): run an engine on a server of your own, or any engine of the same kind.`;
  const CHAT = `chat.md
Answers stream into the chat as they come. Each of the answers cites its pages. An answer can be copied.`;
  const ENGINE = `engine.md
In Offline mode the app's \`lite\` engine answers by looking the question up in the pages kept on disk, with a citation for each page it quotes.`;

  it('reads what the question asks to name: the word after "which" or "what"', () => {
    assert.equal(askedFor('Which engine answers in Offline mode?'), matchRoot('engine'));
    assert.equal(askedFor('What kind of files can it convert?'), matchRoot('file'));
    assert.equal(askedFor('What is the default?'), undefined);
    assert.equal(askedFor('How do I sync a folder?'), undefined);
  });

  it('finds a name in code marks or bold next to the word, not the word in bold itself nor a name far from it', () => {
    const engine = matchRoot('engine');
    assert.equal(namesNear("the app's `lite` engine answers", engine), true);
    assert.equal(namesNear('**Use a Remote Engine…** (Offline mode): run an engine on a server', engine), false);
    assert.equal(namesNear('`lite` is fast on pages of every size and kind, and it is the engine', engine), false);
  });

  it('quotes first the sentence that names the engine, over one that repeats the word "engine"', () => {
    const text = answer(grounded([MENU, CHAT, ENGINE], 'Which engine answers in Offline mode?'));
    assert.match(firstQuote(text), /^- "In Offline mode the app's `lite` engine answers/, text);
    assert.match(text, /Use a Remote Engine/, 'the sentence that only repeats the word is still quoted, after it');
  });
});

describe('local-extractive: a follow-up that leans on the conversation takes its subject from the previous answer too', () => {
  // Three ways to stop something; the conversation is about the vault, a word no question uses.
  const MAIL = 'mail.md\nThe mail server sends a report every morning. To stop the mail server, run **Stop Mail** from the status bar.';
  const PRINT = 'print.md\nTo stop a print job, press **Cancel** in the print queue. The print queue lists every job.';
  const VAULT =
    'vault.md\nTo stop the vault, run **Pause Vault** from the status bar. The vault keeps nightly backups for thirty days. The vault is encrypted at rest.';
  const OTHER =
    'editor.md\nThe editor opens files. The theme changes colours. The terminal runs commands. The explorer lists folders. The search view finds text. The settings editor edits settings.';
  const quoted = (...quotes: string[]) =>
    `From the supplied sources:\n\n${quotes.map((q) => `- "${q}" [2]`).join('\n')}\n\n_local-extractive: quoted from the sources, not generated._`;
  const KEPT = 'The vault keeps nightly backups for thirty days.';

  it('quotes the way to stop what the earlier answers were about, not the first source that says how to stop something', () => {
    const text = answer(
      grounded(
        [MAIL, VAULT, PRINT, OTHER],
        'What keeps the nightly copies?',
        quoted(KEPT),
        'and how long?',
        quoted(KEPT),
        'and how do I stop it?',
      ),
    );
    assert.match(firstQuote(text), /^- "To stop the vault, run \*\*Pause Vault\*\* from the status bar\." \[2\]$/, text);
  });

  it("reads another model's answer as its text", () => {
    const text = answer(
      grounded(
        [MAIL, VAULT, PRINT, OTHER],
        'What keeps the nightly copies?',
        'The nightly copies are kept by the vault for thirty days [2].',
        'and how long?',
        'Thirty days: the vault keeps them that long [2].',
        'and how do I stop it?',
      ),
    );
    assert.match(firstQuote(text), /To stop the vault/, text);
  });

  it("weighs the previous answer's words below the previous question's, and only for a question that leans", () => {
    const leaning = queryWeights('and how do I stop it?', ['What keeps the nightly copies?'], ['vault']);
    assert.ok(leaning.get('vault')! > 0 && leaning.get('vault')! < leaning.get(matchRoot('nightly'))!, JSON.stringify([...leaning]));
    assert.equal(queryWeights('How do I stop the mail server?', ['What keeps the nightly copies?'], ['vault']).has('vault'), false);
  });

  it('does not carry the previous answer into a question that names its own subject', () => {
    const text = answer(
      grounded([MAIL, VAULT, PRINT, OTHER], 'What keeps the nightly copies?', quoted(KEPT), 'How do I stop the mail server?'),
    );
    assert.match(firstQuote(text), /To stop the mail server/, text);
  });

  it("reads of this model's answers only the quotes, and nothing of an answer that quotes nothing", () => {
    assert.equal(answeredText(quoted(KEPT, 'The vault is encrypted at rest.')), `- "${KEPT}"\n- "The vault is encrypted at rest."`);
    const table =
      'From the supplied sources:\n\n| setting | default |\n|---|---|\n| `a.b` | `1` |\n\n[2]\n\n_local-extractive: quoted from the sources, not generated._';
    assert.equal(answeredText(table), '| setting | default |\n|---|---|\n| `a.b` | `1` |');
    const nothing = answer(grounded([MAIL], 'Which colour is the sky?'));
    assert.match(nothing, /nothing to quote/);
    assert.equal(answeredText(nothing), '');
    assert.equal(answeredText(answer([{ role: 'user', content: 'hello' }])), '', 'what it says without sources is not an answer');
    assert.equal(answeredText('Backups are kept for thirty days [1][2].'), 'Backups are kept for thirty days.');
  });

  it('says it has nothing to quote in the words the chat uses when the documents do not cover the question, and what to try', () => {
    const one = answer(grounded([MAIL], 'Which colour is the sky?'));
    const two = answer(grounded([MAIL, VAULT], 'Which colour is the sky?'));
    assert.ok(
      one.startsWith(
        'The supplied document does not cover this question, so local-extractive has nothing to quote. Try other words, or a different store.',
      ),
      one,
    );
    assert.ok(
      two.startsWith(
        'The supplied documents do not cover this question, so local-extractive has nothing to quote. Try other words, or a different store.',
      ),
      two,
    );
    // What the chat says when a store's documents do not cover the question, in the same words.
    const chat = noSourcesAnswer({ model: 'local-extractive', stores: [{ id: 'vs_1', name: 'policies' }] })!.text;
    const shared = ' do not cover this question, so local-extractive has nothing to quote.';
    assert.ok(chat.endsWith(shared), chat);
    assert.ok(two.includes(shared), two);
  });

  it('takes the answer just before the question, not an older one', () => {
    const { previousAnswer, earlier, question } = collectSources(
      grounded(
        [VAULT],
        'What keeps the nightly copies?',
        quoted(KEPT),
        'and how long?',
        quoted('The vault is encrypted at rest.'),
        'and how do I stop it?',
      ),
    );
    assert.equal(question, 'and how do I stop it?');
    assert.deepEqual(earlier, ['What keeps the nightly copies?', 'and how long?']);
    assert.equal(previousAnswer, '- "The vault is encrypted at rest."');
  });
});

describe('local-extractive: a number in the question counts', () => {
  const NOTES = [2, 1, 3, 4, 5, 6].map((n) => `ledger-${n}.md\nThe retention period for ledger ${n} is ${n + 5} years.`);

  it('quotes the note on the one-digit ledger the question names', () => {
    const text = answer(grounded(NOTES, 'How many years is the retention period for ledger 4?'));
    assert.match(firstQuote(text), /^- "The retention period for ledger 4 is 9 years\." \[4\]$/, text);
  });
});

describe('local-extractive: a question that names a file or quotes an identifier names its own subject', () => {
  it('does not lean on the conversation however few its words', () => {
    assert.equal(leansOnConversation('What does `retries` do?'), false);
    assert.equal(leansOnConversation('What is "Sync now"?'), false);
    assert.equal(leansOnConversation('What is in budget.xlsx?'), false);
    // Without a name, one word of its own still leans; a pronoun with two still does.
    assert.equal(leansOnConversation('What does it do?'), true);
    assert.equal(leansOnConversation('And retries?'), true);
    const weights = queryWeights('What does `retries` do?', ['How many years is the retention period for ledger 4?'], ['ledger']);
    assert.ok(weights.get(matchRoot('retention'))! < 0.8, JSON.stringify([...weights]));
  });
});

describe("local-extractive: lines of a source's text that look like source markers", () => {
  // A changelog entry that cites answers' sources, as DocChat's own CHANGELOG does.
  const CHANGELOG =
    'CHANGELOG.md\n### Fixed\n\n- Citations of an answer were listed out of order (answers citing [2] before\n  [3]), in number order; an answer citing [3], [2], [1] no longer lists them as 3., 4., 5.\n- Remove from Store, Delete File and Delete Store did nothing from the context menu.';
  const GUIDE = 'user-guide.md\nDelete Vector Store asks first, then deletes the store and its files.';
  const BENCH = 'benchmarks.md\nCompiling extension.js takes 12 ms on two cores.';
  const titlesAndTexts = (content: string) => parseMessage(content).sources.map((s) => [s.n, s.title, s.text]);

  it('keeps a wrapped line starting "[3])" in the source that holds it, and cites each quote to its own source', () => {
    const messages = grounded([CHANGELOG, GUIDE, BENCH], 'What did Remove from Store do from the context menu?');
    assert.deepEqual(
      titlesAndTexts(messages[0]!.content).map(([n, title]) => [n, title]),
      [
        [1, 'CHANGELOG.md'],
        [2, 'user-guide.md'],
        [3, 'benchmarks.md'],
      ],
    );
    assert.equal(parseMessage(messages[0]!.content).sources[2]!.text, 'Compiling extension.js takes 12 ms on two cores.');
    const text = answer(messages);
    assert.match(text, /Remove from Store, Delete File and Delete Store did nothing from the context menu\." \[1\]/, text);
  });

  const HOSTILE: Array<[string, string]> = [
    ['a citation list at the start of a wrapped line', '[3]), in number order; see [2] too.'],
    ['citations at the start of a line', '[2], [3] and [1] are cited in number order.'],
    ['citations written together', '[2][3] both say so.'],
    ['a label of another style in prose', 'Source 2: the vendor data sheet says so.'],
    ['a source tag in a code sample', '<source id="9">'],
    ['a changelog list item', '- [2] Fixed: the second entry of the list.'],
    ['a numbered reference out of order', '[7] A. Smith, Retrieval for answers, 2019.'],
    ['an indented marker', '  [2] an indented reference.'],
    ['a reference link definition', '[2]: https://example.com/reference'],
  ];
  for (const [what, line] of HOSTILE) {
    it(`keeps ${what} ("${line}") in the text of the source that holds it`, () => {
      for (const at of [0, 1]) {
        const sources = ['a.md\nFirst passage.', 'b.md\nSecond passage.', 'c.md\nThird passage.'];
        sources[at] = sources[at]!.replace('passage.', `passage.\n${line}\nMore text.`);
        assert.deepEqual(
          titlesAndTexts(grounded(sources)[0]!.content),
          [
            [1, 'a.md', at === 0 ? `First passage.\n${line}\nMore text.` : 'First passage.'],
            [2, 'b.md', at === 1 ? `Second passage.\n${line}\nMore text.` : 'Second passage.'],
            [3, 'c.md', 'Third passage.'],
          ],
          `in source ${at + 1}`,
        );
      }
    });
  }

  it("reads other clients' marker styles with marker-like lines of another style in their text", () => {
    assert.deepEqual(titlesAndTexts('Source 1: a.md\nOne.\n[2] a footnote.\n\nSource 2: b.md\nTwo.\n\nQuestion: Why?'), [
      [1, 'a.md', 'One.\n[2] a footnote.'],
      [2, 'b.md', 'Two.'],
    ]);
    assert.deepEqual(titlesAndTexts('### [1] a.md\nOne.\n[2] a footnote.\n- [2] an item.\n\n### [2] b.md\nTwo.'), [
      [1, 'a.md', 'One.\n[2] a footnote.\n- [2] an item.'],
      [2, 'b.md', 'Two.'],
    ]);
    assert.deepEqual(titlesAndTexts('<source id="1">\nOne.\n[2] a footnote.\n</source>\n<source id="2">\nTwo.\n</source>'), [
      [1, '', 'One.\n[2] a footnote.'],
      [2, '', 'Two.'],
    ]);
  });

  it('reads sources numbered out of order, or with a number left out, when the next number never comes', () => {
    assert.deepEqual(
      titlesAndTexts('[3] c.md\nThree.\n\n[1] a.md\nOne.\n\n[2] b.md\nTwo.').map(([n, title]) => [n, title]),
      [
        [3, 'c.md'],
        [1, 'a.md'],
        [2, 'b.md'],
      ],
    );
    assert.deepEqual(
      titlesAndTexts('[1] a.md\nOne.\n\n[2] b.md\nTwo.\n\n[4] d.md\nFour.').map(([n, title]) => [n, title]),
      [
        [1, 'a.md'],
        [2, 'b.md'],
        [4, 'd.md'],
      ],
    );
  });

  it("cites every quote of an answer to DocChat's own prompt to the passage it is in", () => {
    const passage = (fileId: string, filename: string, content: string): PassageSource => ({
      kind: 'passage',
      storeId: 'vs_1',
      fileId,
      filename,
      content,
    });
    const sources = numberSources(
      [],
      [
        passage('f1', 'CHANGELOG.md', CHANGELOG.split('\n').slice(1).join('\n')),
        passage(
          'f2',
          'user-guide.md',
          'Remove from Store takes the file out of the store and keeps it on disk.\n[3], [1] and [2] are cited in number order.',
        ),
        passage('f3', 'benchmarks.md', 'Remove from Store of 100 files takes 0.4 s.'),
      ],
    );
    const question = 'What does Remove from Store do?';
    const messages = buildChatMessages({ question, history: [], sources });
    const text = answer(messages);
    const normalize = (s: string) =>
      s
        .replace(/^- "|"$/g, '')
        .replace(/\s+/g, ' ')
        .trim();
    let quotes = 0;
    for (const source of sources) {
      for (const statement of citedStatements(text, source.number, sources.length)) {
        quotes++;
        assert.ok(
          source.content.replace(/\s+/g, ' ').includes(normalize(statement)),
          `"${statement}" is quoted from [${source.number}]:\n${text}`,
        );
      }
    }
    assert.ok(quotes >= 2, `the answer quotes passages after the ones holding such lines:\n${text}`);
  });
});

describe("local-extractive: the first quote of a question not about code is not the code's own files", () => {
  const CODE = `contributing.md
\`src/server/tools.ts\` lists the server's tools for agents (\`registerTools\`, \`ToolRegistry.add\`) and the tools' input schemas.`;
  const USER = `guide.md
Agents can use four read-only tools of the server: list stores, list files, search and read a file.`;
  const sentence = (text: string) => ({ text, tokens: text.split(/\W+/).filter(Boolean) });

  it('counts the words in code marks that name paths, source files and identifiers, not settings, commands or names', () => {
    assert.ok(codeShare(sentence('`src/mcp/` holds the server (`dist/mcp-server.js`) and `consumeAnswer` reads it')) > 0.5);
    assert.equal(codeShare(sentence('`DocumentsClient.uploadFile` sends it')) > 0, true);
    assert.equal(codeShare(sentence('Set `docchat.search.maxResults` or type `/search` to list passages')), 0);
    assert.equal(codeShare(sentence('The tools are `docchat_search` and `docchat_read_file`, answered by `local-extractive`')), 0);
  });

  it('quotes first the sentence that answers, over a better-scoring one naming where the code lives', () => {
    const text = answer(grounded([CODE, USER], 'What tools does the server give agents?'));
    assert.match(firstQuote(text), /^- "Agents can use four read-only tools of the server/, text);
  });

  it('keeps the sentence naming the code first for a question about the code', () => {
    const text = answer(grounded([CODE, USER], 'Which module implements the server tools?'));
    assert.match(firstQuote(text), /^- "`src\/server\/tools\.ts` lists/, text);
  });

  it('moves only the first quote: it takes the best score and the others keep their order', () => {
    const unit = (source: number, text: string) => unitsOf({ n: source, text })[0]!;
    const scored: Scored[] = [
      { unit: unit(1, '`src/a.ts` calls `readStore` and `writeStore` here.'), score: 10, terms: ['store'] },
      { unit: unit(2, 'A store keeps its files on this machine.'), score: 8, terms: ['store'] },
      { unit: unit(3, 'Each store has a name.'), score: 6, terms: ['store'] },
    ];
    const ordered = withFirstQuote(scored, 'Where does a store keep files?');
    assert.deepEqual(
      ordered.map((s) => [s.unit.source, s.score]),
      [
        [2, 10],
        [1, 10],
        [3, 6],
      ],
    );
    assert.deepEqual(withFirstQuote(scored, 'Where is `readStore` defined?'), scored);
  });

  it('leads with the folder a "where" question asks for, but not with source files and identifiers', () => {
    const unit = (source: number, text: string) => unitsOf({ n: source, text })[0]!;
    const folder = {
      unit: unit(1, 'Your documents are stored in `…/globalStorage/docchat.docchat/backend/`.'),
      score: 10,
      terms: ['stored'],
    };
    const vague = { unit: unit(2, 'Documents stay on this computer.'), score: 7, terms: ['documents'] };
    assert.deepEqual(
      withFirstQuote([folder, vague], 'Where are my documents stored?').map((s) => s.unit.source),
      [1, 2],
    );
    // Asked what it is rather than where, the path is the code's and the other sentence leads.
    assert.deepEqual(
      withFirstQuote([folder, vague], 'What happens to my documents?').map((s) => s.unit.source),
      [2, 1],
    );
    const source = { ...folder, unit: unit(1, 'Documents are stored by `src/backend/storeIndex.ts` in `writeStore`.') };
    assert.deepEqual(
      withFirstQuote([source, vague], 'Where are my documents stored?').map((s) => s.unit.source),
      [2, 1],
    );
  });
});

describe('local-extractive: tables as converters write them', () => {
  it('quotes a table cell with HTML line breaks (`<br>`, `<br/>`, `<br />`) as words apart by a space', () => {
    const settings = [
      'settings.md',
      '| setting | what it does |',
      '|---|---|',
      '| `sync.interval` | how often a synced folder is checked<br>for changed files, in minutes |',
      '| `sync.depth` | how deep a synced folder is read<br/>below its top,<br />in folders |',
    ].join('\n');
    const text = answer(grounded([settings], 'How often is a synced folder checked for changed files?'));
    assert.ok(text.includes('| `sync.interval` | how often a synced folder is checked for changed files, in minutes |'), text);
    assert.ok(!/<br/i.test(text), `no HTML line break is quoted as text:\n${text}`);
    const depth = answer(grounded([settings], 'How deep is a synced folder read?'));
    assert.ok(depth.includes('read below its top, in folders'), depth);
    assert.ok(!/<br/i.test(depth), depth);
    // A quoted row without its header is its cells, also without the breaks.
    const headerless = answer(
      grounded(['settings.md\n| `sync.depth` | how deep a synced folder is read<br>below its top |'], 'How deep is a synced folder read?'),
    );
    assert.match(firstQuote(headerless), /^- "`sync\.depth` · how deep a synced folder is read below its top" \[1\]$/, headerless);
  });

  it('splits and weighs sentences at an HTML line break as at a space', () => {
    const units = unitsOf({ n: 1, text: 'Backups are kept for a week.<br/>They are removed on the first restart after that.' });
    assert.deepEqual(
      units.map((u) => u.text),
      ['Backups are kept for a week.', 'They are removed on the first restart after that.'],
    );
    assert.ok(!units.some((u) => u.tokens.includes('br')), 'the break is no word');
    // Code is quoted as written: a code block's, and a code span's.
    assert.deepEqual(
      unitsOf({ n: 1, text: 'A cell keeps its lines apart with `<br>` or `<br/>` in the table.' }).map((u) => u.text),
      ['A cell keeps its lines apart with `<br>` or `<br/>` in the table.'],
    );
    const code = unitsOf({ n: 1, text: '```html\n<p>a<br>b</p>\n```' });
    assert.equal(code[0]?.text, '```html\n<p>a<br>b</p>\n```');
  });

  /** A page laid out in columns (side headings, a blurb, a margin note) that a converter read as one table. */
  const LAYOUT = [
    'guide.pdf, Page 9',
    'Back cover',
    '',
    '| Plan the trip and | This guide explains how to book a train ticket online and<br>how to change it when your plans change. It | RAILWAY |',
    '| --- | --- | --- |',
    '| pack light | covers refunds, seat reservations and the rules for night trains in | TRAVEL |',
    '| Know the rules | every country the network serves. This guide is written for travellers who | SERIES |',
    '| Ask for help | book their own tickets on the website and for the station staff who help them. |  |',
  ].join('\n');

  it('quotes prose laid out in columns as its sentences, not as a table', () => {
    const text = answer(grounded([LAYOUT], 'Who is the guide written for?'));
    assert.match(
      firstQuote(text),
      /^- "This guide is written for travellers who book their own tickets on the website and for the station staff who help them\." \[1\]$/,
      text,
    );
    assert.ok(!/^\|/m.test(text), `no table is quoted:\n${text}`);
    const units = unitsOf({ n: 1, text: LAYOUT.split('\n').slice(1).join('\n') });
    assert.ok(!units.some((u) => u.kind === 'row'), 'the layout gives no table rows');
    assert.ok(
      units.some(
        (u) => u.text === 'It covers refunds, seat reservations and the rules for night trains in every country the network serves.',
      ),
      units.map((u) => u.text).join('\n'),
    );
  });

  it('keeps a real table a table: a header that names its columns, cells that end where they end', () => {
    const cells = (rows: string[]) =>
      rows.map((row) =>
        row
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    // Long descriptions without a full stop, starting with a small letter, under a header of labels.
    const options = [
      '| option | what it does |',
      '| `--watch` | rebuilds the extension whenever a source file of the project changes on disk |',
      '| `--minify` | shrinks the bundles and leaves out the comments and the source maps of them |',
      '| `--check` | runs the type checker over every file before the bundles are written out |',
    ];
    assert.equal(isProseLayout(cells(options)), false);
    const units = unitsOf({ n: 1, text: [options[0], '|---|---|', ...options.slice(1)].join('\n') });
    assert.deepEqual(
      units.map((u) => u.kind),
      ['row', 'row', 'row'],
    );
    // Descriptions of two sentences, the second without a full stop, each complete in its cell.
    const steps = [
      '| step | what happens |',
      '| build | the bundles are written to the output folder. Source maps are kept beside them |',
      '| package | the bundles are packed into one archive. Nothing else is added to it |',
      '| publish | the archive is uploaded to the marketplace. A release note goes with it |',
    ];
    assert.equal(isProseLayout(cells(steps)), false);
    // Descriptions that end with a label after their sentence ("Machine scope") look like lines of
    // prose broken off; under a header that names the columns, or in a chunk that starts inside the
    // table (no header), they are rows.
    const scoped = [
      '| `net.caFiles` | `[]` | extra files of certificate authorities the client trusts. Machine scope |',
      '| `net.strictSSL` | `true` | verify certificates of every host; turning it off disables that. Machine scope |',
      '| `net.allowHttp` | `false` | allow plain http to hosts other than this machine. Machine scope |',
      '| `sync.exclude` | `[]` | globs of the files a folder sync leaves out, on top of the ignore file |',
    ];
    assert.equal(isProseLayout(cells(['| setting | default | what it does |', ...scoped])), false);
    assert.ok(unitsOf({ n: 1, text: scoped.join('\n') }).every((u) => u.kind === 'row'));
    assert.ok(unitsOf({ n: 1, text: [steps[0], '|---|---|', ...steps.slice(1)].join('\n') }).every((u) => u.kind === 'row'));
  });
});
