import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chunkMarkdown } from '../../../src/backend/chunking/chunker';
import { answer } from '../../../src/backend/gateway/extractive';
import { LOCAL_CHAT_MODEL } from '../../../src/api/gateway/models';
import { documentTitle, StoreIndex } from '../../../src/backend/search/storeIndex';
import { FileNameCache, type GroundingDocuments, groundTurn } from '../../../src/chatCore/grounding';
import type { ChatMessage, ChatSource } from '../../../src/chatCore/conversation';
import { QueryRewriter } from '../../../src/chatCore/searchQuery';
import { type AnswerGateway, generateAnswer } from '../../../src/features/chat/answerGenerator';

// A third turn that leans on the first one's topic ("How do I sync a folder?" → "and can I cancel
// it?" → "and how do I stop it?"), over the snapshot of the demo store the answers benchmark uses:
// the backend's chunker and keyword index, the chat's follow-up method and local-extractive.

const DEMO = path.join(__dirname, '../../bench/answers/demo');
const FILES = ['README.md', 'CHANGELOG.md', 'docs/user-guide.md', 'docs/backend.md', 'docs/accessibility.md'];
const STORE = { id: 'vs_demo', name: 'demo' };

function demoDocuments(): GroundingDocuments {
  const index = new StoreIndex();
  const names = new Map<string, string>();
  FILES.forEach((file, i) => {
    const name = path.basename(file);
    index.addFile(`file-${i}`, chunkMarkdown(readFileSync(path.join(DEMO, file), 'utf8')), undefined, documentTitle(name));
    names.set(`file-${i}`, name);
  });
  return {
    search: async (_storeId, body) => ({
      data: index.search(body.query, { maxResults: body.max_num_results ?? 10 }).map((hit) => ({
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

const extractive: AnswerGateway = {
  async *streamChatCompletion(request) {
    yield { content: answer(request.messages), finishReason: 'stop' };
  },
  // eslint-disable-next-line require-yield
  async *streamInference() {
    throw new Error('not used');
  },
};

describe('a third turn grounded in the topic of the first', () => {
  it("keeps the topic's passage among the sources of a third turn that leans on it", async () => {
    const documents = demoDocuments();
    const history: ChatMessage[] = [];
    for (const [i, question] of ['How do I sync a folder?', 'and can I cancel it?'].entries()) {
      const stream = generateAnswer(
        { question, history, context: [], model: LOCAL_CHAT_MODEL, legacy: false, projectCode: 'NA', stores: [STORE], maxResults: 10 },
        { gateway: extractive, documents, fileNames: new FileNameCache() },
        new AbortController().signal,
      );
      let text = '';
      let sources: ChatSource[] = [];
      for (let next = await stream.next(); !next.done; next = await stream.next()) {
        if (next.value.type === 'start') sources = next.value.sources;
        if (next.value.type === 'delta') text += next.value.text;
      }
      assert.ok(sources.length > 0, `turn ${i + 1} is grounded`);
      history.push({ id: `u${i}`, role: 'user', content: question, createdAt: i });
      history.push({ id: `a${i}`, role: 'assistant', content: text, createdAt: i, status: 'done', sources });
    }
    const found = await groundTurn(
      documents,
      { question: 'and how do I stop it?', history, stores: [STORE], maxResults: 10, rewriter: new QueryRewriter() },
      new FileNameCache(),
    );
    assert.match(found.query, /sync folder/, 'the topic is carried into the query');
    // The Folder sync section's row actions, wherever the source holding them starts.
    const holding = found.passages.filter((p) => /Sync Now\*\*, \*\*Retry Failed Files\*\* and \*\*Stop Following\*\*/.test(p.content));
    assert.ok(
      holding.some((p) => p.filename === 'user-guide.md'),
      found.passages.map((p) => `${p.filename} ${p.heading ?? ''}`).join('; '),
    );
  });
});
