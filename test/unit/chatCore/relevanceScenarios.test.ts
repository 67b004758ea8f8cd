/**
 * Scenarios of the relevance check and the follow-up rule as a user meets them: a question asked
 * of several stores where one store covers it and another does not, or where only the stores
 * together do; a follow-up whose carried subject decides whether a passage covers it; which
 * earlier message holds a conversation's subject; and the patterns that read a message (words
 * that refer back, opening connectives, names, "how long"-style asking, other languages), each
 * on several inputs of its kind.
 */
import * as assert from 'node:assert/strict';
import { COVERING_PASSAGES, matchTerms, phrasedInEnglish, relevantInStores, type Scored } from '../../../src/chatCore/relevance';
import { isFollowUp, namesOwnSubject, sinceStoresChanged, subjectMessages, type QueryTurn } from '../../../src/chatCore/searchQuery';

const passage = (content: string, score = 1): Scored => ({ score, content });
/** How many passages each store keeps. */
const kept = (lists: Scored[][]) => lists.map((list) => list.length);

describe('relevance across several stores, scenario by scenario', () => {
  const question = 'How long are invoices kept under the retention schedule?';
  const handbook = [passage('Invoices are kept for ten years under the retention schedule.')];
  const archive = [passage('Old furniture is kept in the basement.')];

  it('answers from the store that covers the question and leaves out one that only shares a word, in either order', () => {
    assert.deepEqual(kept(relevantInStores(question, [handbook, archive])), [1, 0]);
    assert.deepEqual(kept(relevantInStores(question, [archive, handbook])), [0, 1]);
    assert.deepEqual(kept(relevantInStores(question, [archive, archive, handbook])), [0, 0, 1]);
  });

  it('keeps every store that covers the question on its own, even when they hold the same words', () => {
    const copy = [passage('Under the retention schedule, invoices are kept ten years.')];
    assert.deepEqual(kept(relevantInStores(question, [handbook, copy])), [1, 1]);
    // Each store's best passage holds exactly half of the question's weight: that covers it, in
    // both stores, though the second adds no word the first lacks.
    const finance = [passage('Invoices are kept by finance.'), passage('The retention schedule is reviewed yearly.', 0.1)];
    const finance2 = [passage('Kept invoices: see finance.'), passage('A retention schedule exists.', 0.1)];
    assert.deepEqual(kept(relevantInStores('invoices kept retention schedule, how?', [finance, finance2])), [1, 1]);
  });

  it('takes two stores that each hold a quarter of the question: together they hold half, which covers it', () => {
    // Each store's second passage is below its search's floor, so each store offers one word of four.
    const policies = [passage('Invoices are archived by the finance team.'), passage('Receipts are kept in folders.', 0.1)];
    const runbooks = [passage('Deployment notes for the operations team.'), passage('Application logs rotate daily.', 0.1)];
    const result = relevantInStores('How long are invoices and deployment logs kept?', [policies, runbooks]);
    assert.deepEqual(kept(result), [1, 1]);
    assert.equal(result[0]![0]!.content, 'Invoices are archived by the finance team.');
    // One of the two alone holds a quarter: not covered, no store answers.
    assert.deepEqual(kept(relevantInStores('How long are invoices and deployment logs kept?', [policies])), [0]);
  });

  it('reads the first passages of a store only (as many as an answer cites), a covering passage later does not count', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => passage(`Printer ${i} sits on the third floor.`));
    const covering = passage('Invoices are kept for ten years under the retention schedule.');
    assert.deepEqual(kept(relevantInStores(question, [[...filler(COVERING_PASSAGES - 1), covering]])), [COVERING_PASSAGES]);
    assert.deepEqual(kept(relevantInStores(question, [[...filler(COVERING_PASSAGES), covering]])), [0]);
  });

  it("weighs a store's passages in their search's order: of two equally good passages the first is its best", () => {
    // Four words of equal weight. Each store's first passage holds a different one, so together
    // they hold half and both answer; were the stores' later equal passages taken instead, the
    // second store would add nothing.
    const a = [passage('Invoices are archived.'), passage('Deployment notes.'), passage('Logs kept.', 0.1)];
    const b = [passage('Deployment notes.'), passage('Invoices.', 0.1), passage('Logs kept.', 0.1)];
    assert.deepEqual(kept(relevantInStores('invoices deployment logs kept, how?', [a, b])), [2, 1]);
  });

  it('keeps the passages of every store for a question of common words only (nothing to weigh)', () => {
    const stores = [[passage('Anything at all.')], [passage('Something else.'), passage('More.', 0.9)]];
    for (const q of ['What is this about?', 'Why is that so?', 'What does it do?']) {
      assert.deepEqual(kept(relevantInStores(q, stores)), [1, 2], q);
    }
  });
});

describe('relevance of a follow-up decided by its carried subject', () => {
  // "How long are invoices kept?" then "And what about contracts?": the rule's query.
  const message = 'And what about contracts?';
  const query = `${message} long invoices kept`;
  const contractsKept = [passage('Contracts are kept for six years.')];

  it('counts a passage holding the message’s words and a carried word, with the message as the user typed it', () => {
    assert.deepEqual(kept(relevantInStores(query, [contractsKept], message)), [1]);
    assert.deepEqual(kept(relevantInStores(query, [contractsKept], `  ${message}  `)), [1]);
    assert.deepEqual(kept(relevantInStores(query, [contractsKept], `${message}\n`)), [1]);
    // Without the message the same query is not covered.
    assert.deepEqual(kept(relevantInStores(query, [contractsKept])), [0]);
  });

  it('does not count a passage that holds the message’s words but none of the carried subject', () => {
    for (const text of ['Contracts are signed by the legal team.', 'Contracts: see the legal wiki.']) {
      assert.deepEqual(kept(relevantInStores(query, [[passage(text)]], message)), [0], text);
    }
  });

  it('does not count a passage that holds a carried word but less than half of the message’s words', () => {
    const q = 'And leases, contracts and deeds? long invoices kept';
    const lists = [[passage('Contracts are kept for six years.'), passage('Leases end.', 0.1), passage('Deeds stay.', 0.1)]];
    assert.deepEqual(kept(relevantInStores(q, lists, 'And leases, contracts and deeds?')), [0]);
  });

  it('counts a passage holding exactly half of the message’s own weight and a carried word', () => {
    // "contracts" and "leases" weigh alike (each in one passage); the first passage holds one.
    const lists = [[passage('Contracts are kept for six years.'), passage('Lease agreements end after a year.', 0.1)]];
    const q = 'And what about contracts and leases? long invoices kept';
    assert.deepEqual(kept(relevantInStores(q, lists, 'And what about contracts and leases?')), [1]);
  });

  it('weighs a follow-up with no words of its own by its whole query, not by one carried word', () => {
    const q = 'And then? long invoices kept retention';
    for (const text of ['Furniture is kept in the basement.', 'Retention of e-mail is set by IT.']) {
      assert.deepEqual(kept(relevantInStores(q, [[passage(text)]], 'And then?')), [0], text);
    }
    assert.deepEqual(kept(relevantInStores(q, [[passage('Invoices are kept for ten years (retention).')]], 'And then?')), [1]);
  });

  it('keeps a store covering the follow-up through its carried subject and a store adding carried words, though together they hold under half', () => {
    const q = 'And what about contracts? long invoices kept retention schedule';
    // "contracts" and "kept" are in many of the first store's passages, so they weigh little.
    const contracts = [
      passage('Contracts are kept for six years.'),
      ...Array.from({ length: 3 }, () => passage('Contracts kept on file.', 0.1)),
    ];
    const schedules = [passage('The retention schedule is reviewed every year.')];
    assert.deepEqual(kept(relevantInStores(q, [contracts, schedules], message)), [1, 1]);
    assert.deepEqual(kept(relevantInStores(q, [schedules, contracts], message)), [1, 1]);
    // Without the message neither the stores together nor one alone covers the query.
    assert.deepEqual(kept(relevantInStores(q, [contracts, schedules])), [0, 0]);
  });

  it('applies the carried-subject reading only to a query that extends the message (not a rewrite)', () => {
    const rewrite = 'contracts retention period invoices';
    const lists = [[passage('Contracts and invoices are filed together.')]];
    assert.deepEqual(kept(relevantInStores(rewrite, lists, message)), [0]);
  });
});

describe('the conversation’s subject and the follow-up rule on realistic messages', () => {
  const turns = (...messages: string[]): QueryTurn[] =>
    messages.flatMap((content) => [
      { role: 'user' as const, content },
      { role: 'assistant' as const, content: 'An answer.' },
    ]);

  it('holds one message as the subject after a message that names its own subject', () => {
    assert.deepEqual(subjectMessages(turns('How long are invoices kept?')), ['How long are invoices kept?']);
    assert.deepEqual(subjectMessages(turns('How long are invoices kept?', 'Which ports does Ollama probe on startup?')), [
      'Which ports does Ollama probe on startup?',
    ]);
    assert.deepEqual(subjectMessages(turns('How long are invoices kept?', 'And contracts?')), [
      'And contracts?',
      'How long are invoices kept?',
    ]);
  });

  it('reads a one-word message as elliptical, whether or not it names the subject again', () => {
    const history = turns('How long are invoices kept?');
    for (const q of ['Invoices?', 'invoices', 'Windows?', 'Where are the invoices?', 'What are the invoices?', 'What is the default?']) {
      assert.equal(namesOwnSubject(history, q), false, q);
    }
  });

  it('takes a message sharing a word with the topic a run of follow-ups leans on as naming the subject again', () => {
    const history = turns('How long are invoices kept?', 'And contracts?');
    assert.equal(namesOwnSubject(history, 'Where are scanned invoices archived?'), true);
    assert.equal(namesOwnSubject(history, 'Which contracts are signed digitally?'), true);
    assert.equal(namesOwnSubject(history, 'Which ports are probed at startup?'), false);
  });

  it('takes an acronym, a number of two digits or more or a capitalised name after the first word as a subject of its own', () => {
    const history = turns('How long are invoices kept?');
    for (const q of [
      'How is the WACC computed?',
      'GDPR fines for the late filings of a company?',
      'What changed in 2019 for late filings?',
      '2019 figures for the late filings of a company?',
      'Does the UK office file receipts?',
      'Which port does the service use in the EU',
      'Do the Arizona Cardinals play abroad?',
      'Which port does  Ollama use?',
    ]) {
      assert.equal(namesOwnSubject(history, q), true, q);
    }
    for (const q of ['Which ports does step 2 probe?', 'Which ports are probed at startup?', 'Where do backups go on day 3?']) {
      assert.equal(namesOwnSubject(history, q), false, q);
    }
  });

  it('reads a lone connective in capitals as a follow-up, not as a name', () => {
    const history = turns('How long are invoices kept?');
    for (const q of ['WHY', 'AND', 'SO', 'WHY NOT', 'WHAT ABOUT', 'HOW SO', 'HOW ABOUT', 'WHAT ELSE']) {
      assert.equal(namesOwnSubject(history, q), false, q);
    }
  });

  it('reads words referring back wherever they stand, and only as whole words', () => {
    for (const q of [
      'Those limits apply to uploads too?',
      'They expire after ninety days?',
      'It fails on Windows with large uploads?',
      'How do I raise the upload limit for this',
      'Are uploads limited there',
      'Which setting changes the other',
    ]) {
      assert.equal(isFollowUp(q), true, q);
    }
    for (const q of ['Thermal limits of the upload service?', 'Which items expire after ninety days?', 'Otherwise uploads fail?']) {
      assert.equal(isFollowUp(q), false, q);
    }
  });

  it('reads a message opening with a connective as a follow-up, with or without leading blanks or punctuation', () => {
    for (const q of [
      'And the deployment logs are kept longer?',
      '  And the deployment logs are kept longer?',
      'But deployment logs expire sooner, right?',
      'So deployment logs expire sooner?',
      'Why not deployment logs as well?',
      'vs the deployment logs retention?',
      'vs. the deployment logs retention?',
      'Versus deployment logs retention?',
      'And, deployment logs retention?',
    ]) {
      assert.equal(isFollowUp(q), true, q);
    }
  });

  it('does not read a connective inside the message, or a word beginning with one, as an opening', () => {
    for (const q of [
      'How do uploads and downloads differ?',
      'Which uploads or downloads are throttled?',
      'Brand guidelines for uploaded logos?',
      'Andorra tax rules for invoices?',
      'Social security numbers in uploads?',
      'Butter prices in the finance sheet?',
    ]) {
      assert.equal(isFollowUp(q), false, q);
    }
  });
});

describe('the conversation a follow-up reads after the stores changed', () => {
  const ask = (content: string): QueryTurn => ({ role: 'user', content });
  const answer = (content: string, storeIds: string[]): QueryTurn => ({ role: 'assistant', content, storeIds });
  const history = [
    ask('How long are invoices kept?'),
    answer('Ten years [1].', ['vs_policies']),
    ask('And contracts?'),
    answer('Six years [1].', ['vs_policies']),
  ];

  it('restarts the subject when a store is added to the chat, or one of its stores replaced', () => {
    assert.deepEqual(sinceStoresChanged(history, ['vs_policies', 'vs_runbooks']), []);
    assert.deepEqual(sinceStoresChanged(history, ['vs_runbooks']), []);
    const two = [ask('How long are invoices kept?'), answer('Ten years [1].', ['vs_policies', 'vs_runbooks'])];
    assert.deepEqual(sinceStoresChanged(two, ['vs_policies', 'vs_contracts']), []);
    assert.deepEqual(sinceStoresChanged(two, ['vs_policies']), []);
    assert.deepEqual(sinceStoresChanged(two, ['vs_runbooks', 'vs_policies']), two);
  });

  it('reads the history from its first turn, an answer there included', () => {
    const fromAnswer = [answer('Ten years [1].', ['vs_policies']), ask('And contracts?')];
    assert.deepEqual(sinceStoresChanged(fromAnswer, ['vs_runbooks']), [ask('And contracts?')]);
    assert.deepEqual(sinceStoresChanged(fromAnswer, ['vs_policies']), fromAnswer);
  });
});

describe('the words a question asks with', () => {
  it('drops "how long", "how many", … wherever they stand and however they are spaced, keeping the subject', () => {
    for (const q of [
      'How long are invoices kept?',
      'Invoices: how long are they kept?',
      'Invoices are kept how long',
      'invoices kept, how  long?',
      'invoices kept (how\tlong)?',
    ]) {
      const terms = matchTerms(q, true);
      assert.equal(terms.has('long'), false, q);
      assert.equal(terms.has('invoic') || terms.has('invoice'), true, q);
    }
    assert.equal(matchTerms('Uploads: how many per minute?', true).has('many'), false);
    assert.equal(matchTerms('Backups run how often', true).has('often'), false);
  });

  it('keeps those words where they are the subject, not the asking', () => {
    assert.equal(matchTerms('long invoices kept', true).has('long'), true);
    assert.equal(matchTerms('Why are somehow long invoices kept?', true).has('long'), true);
    assert.equal(matchTerms('How long are invoices kept?').has('long'), true);
  });
});

describe('questions in other languages written in English letters', () => {
  it('are read by shared words, not as English, whatever the language', () => {
    for (const q of [
      // French, Spanish, Portuguese, Italian and Dutch, each with a word English also has.
      'Pourquoi les factures sont a conserver dix ans?',
      'Cuando vence el pago de las facturas a plazo?',
      'Como se calcula a taxa para uma fatura?',
      'Perche il contratto a tempo scade?',
      'Hoe lang worden facturen bewaard in het archief?',
    ]) {
      assert.equal(phrasedInEnglish(q), false, q);
    }
  });
});
