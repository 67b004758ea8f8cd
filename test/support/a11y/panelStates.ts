/** Every state of the chat panel the accessibility tests check, driven through host messages. */
import type { Page } from 'playwright-core';
import type { AssistantMessage, ChatSource, Conversation, ChatMessage, HostMessage } from '../../../src/chatCore/protocol';
import { deliver } from './panelPage';

const T = 1_763_000_000_000;

export const SOURCES: ChatSource[] = [
  {
    kind: 'passage',
    number: 1,
    storeId: 'vs_1',
    storeName: 'handbook',
    fileId: 'f1',
    filename: 'retention.md',
    content: 'Invoices are kept for ten years after the end of the fiscal year.',
    score: 0.91,
  },
  {
    kind: 'passage',
    number: 2,
    storeId: 'vs_1',
    storeName: 'handbook',
    fileId: 'f2',
    filename: 'contracts.md',
    content: 'Employment contracts are kept for six years.',
    score: 0.52,
  },
  { kind: 'web', number: 3, url: 'https://example.com/policy', title: 'Policy page', content: 'A web page about the policy.' },
  { kind: 'web', number: 4, url: 'ftp://example.com/x', title: 'Not a web address', content: '' },
];

export const ANSWER = [
  '## Retention',
  '',
  'Invoices are kept for **ten years** [1]; contracts for six [2]. See [the wiki](https://wiki.example/retention) and `retentionYears()`.',
  '',
  '> Quoted policy text.',
  '',
  '| kind | years |',
  '| --- | --- |',
  '| invoice | 10 |',
  '',
  '```ts',
  '// how long a document is kept',
  'export function retentionYears(kind: string): number {',
  '  const years = kind === "invoice" ? 10 : 6; // [1]',
  '  return years * 1.0 + 0x0;',
  '}',
  'class Policy extends Base { name = `retention`; }',
  '```',
  '',
  '```python',
  '@decorator',
  'def keep(doc: Document) -> bool:',
  '    """Return True."""',
  '    return doc.year >= 2015 and not None',
  '```',
  '',
  '1. first',
  '2. second',
  '',
].join('\n');

function conversation(messages: ChatMessage[], extra: Partial<Conversation> = {}): Conversation {
  return {
    id: 'c1',
    title: 'Retention',
    createdAt: T,
    updatedAt: T,
    options: { model: 'local-extractive', vectorStoreId: 'vs_1', vectorStoreName: 'handbook' },
    messages,
    pendingContext: [],
    ...extra,
  };
}

export function stateMessage(messages: ChatMessage[], extra: Partial<Conversation> = {}): HostMessage {
  const c = conversation(messages, extra);
  return {
    type: 'state',
    conversation: c,
    conversations: [
      { id: c.id, title: c.title, createdAt: T, updatedAt: T, questions: 1 },
      { id: 'c0', title: 'Earlier chat', createdAt: T - 1, updatedAt: T - 1, questions: 1 },
    ],
    projectCode: 'P-4711',
  };
}

export const question = (id = 'u1', content = 'How long are invoices kept?'): ChatMessage => ({ id, role: 'user', content, createdAt: T });
export const answer = (extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  id: 'a1',
  role: 'assistant',
  content: ANSWER,
  createdAt: T,
  status: 'done',
  model: 'local-extractive',
  sources: SOURCES,
  usage: { promptTokens: 1200, completionTokens: 300, totalTokens: 1500 },
  ...extra,
});

const catalogs: HostMessage[] = [
  {
    type: 'models',
    catalog: {
      loading: false,
      defaultModel: 'local-extractive',
      models: [
        { id: 'local-extractive', kind: 'completion' },
        { id: 'gamma-legacy', kind: 'legacy', retirement: 'December 17' },
      ],
    },
  },
  { type: 'stores', catalog: { loading: false, stores: [{ id: 'vs_1', name: 'handbook' }] } },
];

export type PanelState = { name: string; show(page: Page): Promise<void> };

export const PANEL_STATES: PanelState[] = [
  { name: 'empty', show: (page) => deliver(page, ...catalogs, stateMessage([])) },
  {
    name: 'streaming',
    show: (page) =>
      deliver(
        page,
        ...catalogs,
        stateMessage([
          question(),
          answer({ id: 'a1', content: '', status: 'pending', requestId: 'r1', usage: undefined, sources: undefined }),
        ]),
        { type: 'streamStart', requestId: 'r1', messageId: 'a1', sources: SOURCES },
        { type: 'streamDelta', requestId: 'r1', text: ANSWER.slice(0, 420) },
      ),
  },
  {
    name: 'answer with sources, code and chips',
    show: (page) =>
      deliver(
        page,
        ...catalogs,
        stateMessage([{ ...question(), context: [SOURCES[0]!, SOURCES[2]!] } as ChatMessage, answer()], {
          pendingContext: [SOURCES[1]!, SOURCES[2]!],
        }),
      ),
  },
  {
    name: 'inline error',
    show: (page) =>
      deliver(
        page,
        ...catalogs,
        stateMessage([
          question(),
          answer({
            content: 'Partial',
            status: 'error',
            usage: undefined,
            sources: undefined,
            error: {
              kind: 'auth',
              message: 'The gateway rejected the API key (401).',
              actions: ['retry', 'setGatewayApiKey', 'showOutput'],
            },
          }),
        ]),
      ),
  },
  {
    name: 'model that cannot chat, marked in the model list',
    show: (page) =>
      deliver(
        page,
        {
          type: 'models',
          catalog: {
            loading: false,
            defaultModel: 'local-extractive',
            models: [
              { id: 'local-extractive', kind: 'completion' },
              { id: 'tiny-chat', kind: 'completion' },
              { id: 'whisper-1', kind: 'completion', unavailable: '"whisper-1" does not support chat' },
            ],
          },
        },
        catalogs[1]!,
        stateMessage(
          [
            question(),
            answer({
              content: '',
              status: 'error',
              model: 'whisper-1',
              usage: undefined,
              error: {
                kind: 'model_unavailable',
                message: 'whisper-1 cannot answer chat questions: "whisper-1" does not support chat.',
                actions: ['chooseModel', 'useLocalExtractive'],
                unavailable: { reason: '"whisper-1" does not support chat' },
              },
            }),
          ],
          { options: { model: 'whisper-1', vectorStoreId: 'vs_1', vectorStoreName: 'handbook' } },
        ),
      ),
  },
  {
    name: 'pickers, notices and options open',
    show: async (page) => {
      await deliver(
        page,
        {
          type: 'models',
          catalog: {
            loading: false,
            error: 'Could not load the models: the gateway answered 503.',
            models: [{ id: 'local-extractive', kind: 'completion' }],
          },
        },
        { type: 'stores', catalog: { loading: false, stores: [] } },
        stateMessage([question(), answer({ tool: 'web', model: undefined })]),
      );
      await page.click('button[aria-label="Conversation options"]');
      await page.focus('select.model-select');
    },
  },
  {
    name: 'research progress',
    show: (page) =>
      deliver(
        page,
        ...catalogs,
        stateMessage([
          question('u1', '/research retention'),
          answer({
            content: '',
            status: 'streaming',
            requestId: 'r2',
            tool: 'research',
            model: undefined,
            sources: undefined,
            usage: undefined,
          }),
        ]),
        { type: 'streamProgress', requestId: 'r2', progress: { text: 'Reading 4 pages…', fraction: 0.4 } },
      ),
  },
  {
    name: 'slash menu',
    show: async (page) => {
      await deliver(page, ...catalogs, stateMessage([]));
      await page.click('textarea.composer-input');
      await page.keyboard.type('/');
      await page.keyboard.press('ArrowDown');
    },
  },
];
