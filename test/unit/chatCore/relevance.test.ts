import * as assert from 'node:assert/strict';
import {
  aboveFloor,
  FOLLOW_UP_COVERAGE,
  matchTerms,
  phrasedInEnglish,
  queryWeights,
  relevantInStores,
  relevantPassages,
  unheldSentence,
  unheldWords,
  weightedCoverage,
} from '../../../src/chatCore/relevance';

const passage = (score: number, content = 'rate limiter settings') => ({ score, content });

describe('relevance floor (relative to the same search)', () => {
  // The same ranking on three scales the documents service might use.
  const shapes = {
    'scores in 0..1': [0.92, 0.8, 0.41, 0.2, 0.05],
    'raw BM25 scores': [27.6, 24, 12.3, 6, 1.5],
    'scores in 0..100': [92, 80, 41, 20, 5],
  };
  for (const [name, scores] of Object.entries(shapes)) {
    it(`keeps the same passages whatever the scale (${name})`, () => {
      const kept = aboveFloor(scores.map((s) => passage(s)));
      assert.deepEqual(
        kept.map((p) => scores.indexOf(p.score)),
        [0, 1, 2],
      );
    });
  }

  it('keeps everything from a search whose scores are close together (cosine similarities)', () => {
    const kept = aboveFloor([0.83, 0.81, 0.79, 0.78].map((s) => passage(s)));
    assert.equal(kept.length, 4);
  });

  it('works with scores below zero by their place between the lowest and the best', () => {
    const kept = aboveFloor([0.6, 0.1, -0.5, -0.9].map((s) => passage(s)));
    assert.deepEqual(
      kept.map((p) => p.score),
      [0.6, 0.1],
    );
  });

  it('keeps a single passage, and all passages whose scores are equal', () => {
    assert.equal(aboveFloor([passage(0.01)]).length, 1);
    assert.equal(aboveFloor([passage(3), passage(3)]).length, 2);
  });
});

describe('relevance: saying no', () => {
  it('finds nothing relevant when no passage above the floor shares enough of the query', () => {
    const noise = [
      { score: 0.3, content: 'Configure the printer driver on the third floor.' },
      { score: 0.28, content: 'Configure your e-mail signature.' },
    ];
    assert.deepEqual(relevantPassages('How do I configure Kubernetes ingress controllers?', noise), []);
  });

  it('keeps the floor’s passages when one of them supports the query', () => {
    const found = [
      { score: 12, content: 'Kubernetes ingress controllers are configured with annotations.' },
      { score: 9, content: 'Configure the ingress class per namespace.' },
      { score: 1, content: 'Unrelated.' },
    ];
    assert.deepEqual(
      relevantPassages('How do I configure Kubernetes ingress controllers?', found).map((p) => p.score),
      [12, 9],
    );
  });

  it('reads a contraction as the words it stands for, not as a word no passage holds', () => {
    const found = [{ score: 4, content: 'In a folder you have not trusted, DocChat stays available.', heading: 'Restricted Mode' }];
    assert.deepEqual(relevantPassages("Can I use DocChat in a folder I haven't trusted?", found), found);
    assert.deepEqual(
      relevantPassages('What happens when my documents don’t have the answer?', [
        passage(2, 'When the documents have no answer, the chat says so.'),
      ]).length,
      1,
    );
    assert.deepEqual([...matchTerms("I've synced, isn't it?")], ['sync']);
  });

  it('counts words from the file name and heading too, and plural forms as one', () => {
    const row = { score: 1, content: 'Kept ten years.', filename: 'invoices.md', heading: 'Retention' };
    assert.equal(weightedCoverage(queryWeights('invoice retention', [row]), row), 1);
    assert.deepEqual(relevantPassages('invoice retention', [row]), [row]);
  });

  it('compares Chinese and Japanese questions by pairs of characters, as the search does', () => {
    const row = { score: 3, content: '| 東京タワー模型0 | 1000 | 北海道の職人が作った美しい模型です |' };
    assert.deepEqual(relevantPassages('東京タワーの模型', [row]), [row]);
    assert.deepEqual(relevantPassages('大阪城の価格', [row]), []);
    assert.deepEqual(relevantPassages('北海道の職人', [row]), [row]);
  });

  // A search that finds only the common words of a question: the old rule (half of the words, or
  // any two of them) cited these; the subject of the question is in none of them.
  it('says no when the passages share only the common words of the question, however many of them', () => {
    const common = [
      { score: 0.15, content: 'The database of the backend keeps each key in the secret storage.' },
      { score: 0.06, content: 'Set Gateway API Key asks for the key in a password box.' },
      { score: 0.06, content: 'The token key is sent as a header.' },
    ];
    assert.deepEqual(relevantPassages('How do I rotate the database encryption key?', common), []);
  });

  it('gives a word every passage contains (the product’s name) little weight', () => {
    const everywhere = [
      { score: 0.1, content: 'DocChat keeps the controller of each request.' },
      { score: 0.09, content: 'DocChat reads the proxy from the settings; the controller cancels it.' },
      { score: 0.08, content: 'DocChat starts nothing before it is used.' },
    ];
    const weights = queryWeights('Does DocChat support Kubernetes ingress controllers?', everywhere);
    assert.ok(weights.get('docchat')! < weights.get('controller')!);
    assert.ok(weights.get('controller')! < weights.get('kubernet')!);
    assert.deepEqual(relevantPassages('Does DocChat support Kubernetes ingress controllers?', everywhere), []);
  });

  it('finds the question’s rare word among many passages that share its common ones', () => {
    const found = [
      { score: 0.62, content: 'The filter button restricts the search to chosen files.' },
      { score: 0.27, content: 'A search result opens its file.' },
      { score: 0.23, content: 'Files are searched as you type.' },
    ];
    assert.equal(relevantPassages('How do I restrict a search to chosen files?', found).length, 3);
  });

  it('decides the same whatever the scale of the scores', () => {
    const contents = ['The database keeps each key.', 'Each key is stored once.', 'A key per store.'];
    for (const scale of [0.01, 1, 40]) {
      const passages = contents.map((content, i) => ({ score: (4 - i) * scale, content }));
      assert.deepEqual(relevantPassages('How do I rotate the database encryption key?', passages), []);
      assert.equal(relevantPassages('Where does the database keep each key?', passages).length, 3);
    }
  });

  it('matches word forms (cached, caching) and the parts of compound words', () => {
    assert.equal(relevantPassages('How does caching work?', [{ score: 1, content: 'The list is cached for an hour.' }]).length, 1);
    assert.equal(relevantPassages('searches a minute', [{ score: 1, content: 'the 30-searches-a-minute limit' }]).length, 1);
    assert.deepEqual([...matchTerms('sign-on settings', true)], ['sign', 'set']);
  });

  it('does not count how a question asks ("how long", "what happens") as its subject', () => {
    assert.deepEqual([...matchTerms('How long is the model list cached?', true)], ['model', 'cach']);
    assert.deepEqual([...matchTerms('What happens when I need a token?', true)], ['token']);
    // In a passage the same words count.
    assert.deepEqual([...matchTerms('It needs a long token.')], ['need', 'long', 'token']);
  });

  it('does not count the plural of a phrasing word ("differences", "compares") as the subject of a compare question', () => {
    assert.deepEqual([...matchTerms('What are the differences between the chat panel and the view?', true)], ['chat', 'panel', 'view']);
    assert.deepEqual(
      [...matchTerms('What are the differences between the chat panel and the view?', true)],
      [...matchTerms('What is the difference between the chat panel and the view?', true)],
    );
    assert.deepEqual([...matchTerms('How the chat panel compares with the view', true)], ['chat', 'panel', 'view']);
    // No passage says "differences": the question is still covered by the passages about what it compares.
    const passages = [
      { score: 1, content: 'The chat panel opens beside the editor.' },
      { score: 0.9, content: 'The Chat view answers with the gateway model.' },
    ];
    assert.equal(relevantPassages('What are the differences between the chat panel and the Chat view?', passages).length, 2);
  });

  it('keeps a follow-up searched with its carried subject when a best passage holds the follow-up and the subject', () => {
    const query = 'What are its limits? Set Store File Metadata';
    const passages = [
      { score: 9, content: 'Set File Metadata enforces the service’s limits: at most 16 pairs.' },
      { score: 7, content: 'Attach files to a store.' },
      { score: 6, content: 'The store lists its files.' },
    ];
    assert.equal(relevantPassages(query, passages).length, 3);
    assert.deepEqual(
      relevantPassages(query, [
        { score: 7, content: 'Attach files to a store.' },
        { score: 6, content: 'The store lists its files.' },
      ]),
      [],
    );
  });
});

describe('relevance of questions in other languages', () => {
  // Each language: one passage that answers, three about other things; the question asks with
  // words no passage holds ("wie lange", "combien de temps", "どのくらい", "多久").
  const cases = [
    {
      language: 'German',
      passages: [
        'Rechnungen werden zehn Jahre aufbewahrt.',
        'Verträge liegen im Archiv.',
        'Das Netzwerk nutzt einen Proxy.',
        'Die Suche ist schnell.',
      ],
      covered: ['Wie lange werden Rechnungen aufbewahrt?', 'Wo werden die Rechnungen aufbewahrt?'],
      uncovered: 'Wie tausche ich den Datenbankschlüssel aus?',
    },
    {
      language: 'French',
      passages: [
        'Les factures sont conservées pendant dix ans.',
        'Les contrats sont archivés.',
        'Le réseau passe par un proxy.',
        'La recherche est rapide.',
      ],
      covered: ['Combien de temps les factures sont-elles conservées ?', 'Où les factures sont-elles conservées ?'],
      uncovered: 'Comment changer la clé de chiffrement de la base ?',
    },
    {
      language: 'Japanese',
      passages: ['請求書は十年間保存されます。', '契約書は書庫にあります。', 'ネットワークはプロキシを使います。', '検索は速いです。'],
      covered: ['請求書はどのくらい保存されますか？', '請求書の保存期間は？'],
      uncovered: 'データベースの暗号鍵の交換手順',
    },
    {
      language: 'Chinese',
      passages: ['发票保存十年。', '合同存放在档案室。', '网络使用代理服务器。', '搜索很快。'],
      covered: ['发票保存多久？', '发票要保存多长时间？'],
      uncovered: '数据库加密密钥怎么更换',
    },
  ];
  for (const { language, passages, covered, uncovered } of cases) {
    const ranked = passages.map((content, i) => ({ score: 1 - i * 0.1, content }));
    it(`keeps the passages of a covered ${language} question, and says no to an uncovered one`, () => {
      for (const question of covered) {
        assert.equal(phrasedInEnglish(question), false, question);
        assert.ok(relevantPassages(question, ranked).length > 0, `${question} is covered`);
      }
      assert.deepEqual(relevantPassages(uncovered, ranked), [], `${uncovered} is not covered`);
    });
  }

  it('counts the parts of a setting’s name in a question in another language', () => {
    const ranked = [
      { score: 1, content: '| `docchat.search.maxResults` | 10 | passages for a question about one fact |' },
      { score: 0.6, content: 'The search runs as you type.' },
    ];
    assert.equal(relevantPassages('Was bedeutet die Einstellung docchat.search.maxResults?', ranked).length, 2);
  });

  it('reads English questions by the weighted check, keyword queries and other languages by shared words', () => {
    assert.equal(phrasedInEnglish('Does DocChat support Kubernetes ingress controllers?'), true);
    assert.equal(phrasedInEnglish('How long are invoices kept?'), true);
    assert.equal(phrasedInEnglish('Wie lange werden Rechnungen aufbewahrt?'), false);
    assert.equal(phrasedInEnglish('Kubernetes ingress controllers'), false);
    assert.equal(phrasedInEnglish('Où sont les factures ?'), false);
    assert.equal(phrasedInEnglish('Was bedeutet die Einstellung docchat.search.maxResults?'), false);
    assert.equal(phrasedInEnglish('Hoe lang worden facturen bewaard?'), false);
    assert.equal(phrasedInEnglish('Was the index rebuilt after the upgrade?'), true);
  });
});

describe('relevance of a follow-up searched with its carried subject', () => {
  const query = 'And what about contracts? long invoices kept';
  const contracts = [{ score: 1, content: 'Contracts are kept for six years.' }];

  it('counts a passage holding the message’s own words and a word of the subject (the message replaces part of it)', () => {
    assert.equal(relevantInStores(query, [contracts], 'And what about contracts?')[0]!.length, 1);
    // Without knowing the message, the query's words weigh alike and the passage lacks most of them.
    assert.deepEqual(relevantPassages(query, contracts), []);
  });

  it('still says no when the passage lacks the message’s own words', () => {
    const invoices = [{ score: 1, content: 'Invoices are kept for ten years.' }];
    assert.deepEqual(relevantInStores('And on Kubernetes? long invoices kept', [invoices], 'And on Kubernetes?'), [[]]);
  });
});

describe('relevance across several stores', () => {
  const kubernetes = [
    { score: 12, content: 'Kubernetes ingress controllers are configured with annotations.' },
    { score: 9, content: 'Configure the ingress class per namespace.' },
  ];
  const noise = [
    { score: 0.3, content: 'Configure the printer controllers on the third floor.' },
    { score: 0.2, content: 'The printer controllers are configured by the help desk.' },
  ];

  it('drops a store whose passages add nothing to the store that covers the question', () => {
    const [a, b] = relevantInStores('How do I configure Kubernetes ingress controllers?', [kubernetes, noise]);
    assert.equal(a!.length, 2);
    assert.deepEqual(b, []);
  });

  it('keeps both stores of a question that spans them, each holding its part', () => {
    const policies = [
      { score: 5, content: 'Invoices are kept for ten years.' },
      { score: 1, content: 'Exceptions are approved by the CISO.' },
    ];
    const runbooks = [{ score: 2, content: 'Deployment logs are kept for ninety days, then deleted.' }];
    const [a, b] = relevantInStores('How long are invoices and deployment logs kept?', [policies, runbooks]);
    assert.equal(a!.length, 1);
    assert.equal(b!.length, 1);
  });

  it('says no for every store when none of them holds the subject', () => {
    assert.deepEqual(relevantInStores('How do I rotate the database encryption key?', [noise, noise]), [[], []]);
  });
});

describe('relevance of a follow-up in a conversation the documents already grounded', () => {
  it('covers a follow-up whose passage holds a third of its weight, which would not cover a first question', () => {
    const query = 'When did invoices retention archive scanning start?';
    const passages = [
      { score: 1, content: 'Invoices are scanned into the archive.' },
      { score: 0.9, content: 'Contracts are signed by the director.' },
      { score: 0.8, content: 'The pager app needs setting up.' },
    ];
    assert.deepEqual(relevantInStores(query, [passages])[0], []);
    assert.equal(relevantInStores(query, [passages], undefined, { minCoverage: FOLLOW_UP_COVERAGE })[0]!.length > 0, true);
  });
});

describe('relevance: the passage that covers the question among the first ones the answer gets', () => {
  it('is covered when the passage holding the subject comes after passages sharing only a common word', () => {
    const found = [
      { score: 1, content: 'The cardinals are a family of songbirds of the Americas.' },
      { score: 0.97, content: 'Northern cardinals eat seeds and insects.' },
      { score: 0.95, content: 'Cardinals of the Catholic Church elect the pope.' },
      { score: 0.9, content: 'Cardinals nest in dense shrubs.' },
      { score: 0.88, content: 'The Arizona Cardinals played a regular season game in Mexico City, outside the United States.' },
    ];
    assert.deepEqual(
      relevantPassages('Do the Arizona Cardinals play outside the United States?', found).map((p) => p.score),
      [1, 0.97, 0.95, 0.9, 0.88],
    );
  });

  describe('unheldWords (what a "not covered" answer names)', () => {
    const passages = [
      { content: 'DocChat sends no telemetry. Usage data stays on this machine.' },
      { content: 'Attach files to a vector store.', filename: 'attaching-files.md' },
    ];

    it("names the question's distinctive words none of the passages holds, as written, in its order, each once", () => {
      assert.deepEqual(unheldWords('How do I stop it sending usage stats or tracking data?', passages), ['stop', 'stats', 'tracking']);
      // Plural and singular are one word; a word the passages hold in another form is held.
      assert.deepEqual(unheldWords('Which Kubernetes clusters and which cluster tools?', passages), ['Kubernetes', 'clusters', 'tools']);
      assert.deepEqual(unheldWords('How do I attach a file?', passages), []);
      // Framing verbs and "how long" ask, they name nothing.
      assert.deepEqual(unheldWords('How long do I need to keep invoices?', passages), ['keep', 'invoices']);
    });

    it('names at most three, and none for a question not in English or when no passage was found', () => {
      assert.deepEqual(unheldWords('Where are ledgers, receipts, payslips and pensions archived?', passages), [
        'ledgers',
        'receipts',
        'payslips',
      ]);
      assert.deepEqual(unheldWords('Wie lange werden Rechnungen aufbewahrt?', passages), []);
      assert.deepEqual(unheldWords('How do I stop the tracking?', []), []);
    });

    it('says it in one sentence, "or" before the last word', () => {
      assert.equal(unheldSentence([]), '');
      assert.equal(unheldSentence(['SAML']), 'No passage it found mentions “SAML”: the documents may use other words for it.');
      assert.equal(
        unheldSentence(['stop', 'stats', 'tracking']),
        'No passage it found mentions “stop”, “stats”, or “tracking”: the documents may use other words for it.',
      );
    });
  });
});
