/**
 * One-line mistakes that would hurt users and that the tests of their own modules once let
 * through, each checked through the real code: the MCP server's change switch, the rewrite cache
 * per conversation, an XLS shared string that continues in a CONTINUE record, the encoding of a
 * text whose first bytes are plain ASCII, and a new chat's stores. (The MCP search's file
 * restriction field is checked on the real server in test/unit/mcp/mcpServer.test.ts; a streamed
 * tool call's id in test/unit/features/agentModelStream.test.ts.)
 */
import * as assert from 'node:assert/strict';
import iconv from 'iconv-lite';
import { convertWithNotes } from '../../../src/backend/convert/index';
import { decodeLegacyText } from '../../../src/backend/convert/encoding';
import { groundingStores } from '../../../src/chatCore/conversationStores';
import { QueryRewriter, type RewriteModel } from '../../../src/chatCore/searchQuery';
import { ChatSession } from '../../../src/features/chat/chatSession';
import { ConversationStore } from '../../../src/features/chat/conversationStore';
import { McpEnv, readMcpConfig } from '../../../src/mcp/environment';
import { MemoryState, testEnvironment } from '../features/chat/fixtures';

describe('MCP server: the change tools are on only for DOCCHAT_MCP_ALLOW_CHANGES=1 or true', () => {
  const config = (value: string | undefined) => {
    const result = readMcpConfig({ [McpEnv.storageDir]: '/var/docchat', [McpEnv.allowChanges]: value });
    assert.equal(typeof result, 'object', String(result));
    return result as Exclude<typeof result, string>;
  };
  for (const value of [undefined, '', '0', 'false', 'FALSE', 'False', 'no', 'off', ' ', '2', 'yes please']) {
    it(`off for ${JSON.stringify(value)}`, () => assert.equal(config(value).allowChanges, false));
  }
  for (const value of ['1', 'true', 'TRUE', 'True']) {
    it(`on for ${JSON.stringify(value)}`, () => assert.equal(config(value).allowChanges, true));
  }
  it('passes the file restriction field on (trimmed), and leaves it unset when empty', () => {
    const read = (value: string | undefined) =>
      readMcpConfig({ [McpEnv.storageDir]: '/var/docchat', [McpEnv.fileIdsField]: value }) as { fileIdsField?: string };
    assert.equal(read(' attributes_file_ids ').fileIdsField, 'attributes_file_ids');
    assert.equal(read('').fileIdsField, undefined);
    assert.equal(read(undefined).fileIdsField, undefined);
  });
});

describe('query rewrite cache: one conversation never reuses another conversation’s rewrite', () => {
  it('the same follow-up after different conversations is rewritten for each', async () => {
    const asked: string[] = [];
    const model: RewriteModel = {
      id: 'gpt-test',
      complete: async (messages) => {
        const prompt = messages.map((m) => m.content).join('\n');
        asked.push(prompt);
        return prompt.includes('invoices') ? 'invoice retention limits' : 'vacation policy limits';
      },
    };
    const rewriter = new QueryRewriter();
    const invoices = [
      { role: 'user' as const, content: 'How long are invoices kept?' },
      { role: 'assistant' as const, content: 'Invoices are kept for ten years.' },
    ];
    const vacation = [
      { role: 'user' as const, content: 'How many vacation days do I get?' },
      { role: 'assistant' as const, content: 'Thirty days a year.' },
    ];
    const question = 'And what are its limits?';
    assert.deepEqual(await rewriter.queryFor(invoices, question, model), { text: 'invoice retention limits', by: 'model' });
    assert.deepEqual(await rewriter.queryFor(vacation, question, model), { text: 'vacation policy limits', by: 'model' });
    assert.equal(asked.length, 2, 'the model was asked once per conversation');
    // The same turn again (a regenerated answer) is the cache's to answer.
    assert.deepEqual(await rewriter.queryFor(invoices, question, model), { text: 'invoice retention limits', by: 'model' });
    assert.equal(asked.length, 2);
    // Another model is another rewrite.
    await rewriter.queryFor(invoices, question, { ...model, id: 'other-model' });
    assert.equal(asked.length, 3);
  });
});

// ---------------------------------------------------------------- XLS shared strings

/** One BIFF record. */
function record(type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(data.length, 2);
  return Buffer.concat([head, data]);
}

/**
 * A BIFF8 workbook of one sheet whose cells A1..An show the shared strings, the table split across
 * an SST record and CONTINUE records at the given character positions (each continuation starts
 * with its own encoding flag: 0 one byte a character, 1 UTF-16).
 */
async function xlsWithSharedStrings(strings: { text: string; splitAt?: number; continueWide?: boolean }[]): Promise<Buffer> {
  const CFB = await import('cfb');
  const bof = (kind: number) => {
    const data = Buffer.alloc(16);
    data.writeUInt16LE(0x0600, 0);
    data.writeUInt16LE(kind, 2);
    return record(0x0809, data);
  };
  const name = Buffer.from('Notes', 'latin1');
  const boundsheet = record(0x0085, Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, name.length, 0]), name]));
  const chars = (text: string, wide: boolean) => (wide ? Buffer.from(text, 'utf16le') : Buffer.from(text, 'latin1'));
  const parts: Buffer[][] = [[]];
  const head = Buffer.alloc(8);
  head.writeUInt32LE(strings.length, 0);
  head.writeUInt32LE(strings.length, 4);
  parts[0]!.push(head);
  for (const s of strings) {
    const firstWide = [...s.text.slice(0, s.splitAt ?? s.text.length)].some((c) => c.charCodeAt(0) > 0xff);
    const header = Buffer.alloc(3);
    header.writeUInt16LE(s.text.length, 0);
    header[2] = firstWide ? 1 : 0;
    parts[parts.length - 1]!.push(header, chars(s.text.slice(0, s.splitAt ?? s.text.length), firstWide));
    if (s.splitAt !== undefined) {
      const wide = s.continueWide ?? false;
      parts.push([Buffer.from([wide ? 1 : 0]), chars(s.text.slice(s.splitAt), wide)]);
    }
  }
  const sst = [record(0x00fc, Buffer.concat(parts[0]!)), ...parts.slice(1).map((p) => record(0x003c, Buffer.concat(p)))];
  const cells = strings.map((_, i) => {
    const data = Buffer.alloc(10);
    data.writeUInt16LE(i, 0); // row
    data.writeUInt16LE(0, 2); // column
    data.writeUInt16LE(0, 4); // style
    data.writeUInt32LE(i, 6); // shared string index
    return record(0x00fd, data);
  });
  const eof = record(0x000a, Buffer.alloc(0));
  const stream = Buffer.concat([bof(0x0005), boundsheet, ...sst, eof, bof(0x0010), ...cells, eof]);
  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, 'Workbook', stream);
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

describe('XLS: a shared string continued in a CONTINUE record reads whole, without the flag byte', () => {
  it('one-byte and UTF-16 continuations, and the strings after them', async () => {
    const xls = await xlsWithSharedStrings([
      { text: 'Quarterly revenue report', splitAt: 13 },
      { text: 'Grüße aus Köln und 東京', splitAt: 10, continueWide: true },
      { text: 'Owner' },
    ]);
    const { markdown } = await convertWithNotes('notes.xls', xls, { skipOcr: true, maxBytes: 1024 * 1024 });
    const lines = markdown.split('\n');
    assert.ok(lines.includes('## Sheet: Notes'), markdown);
    for (const text of ['Quarterly revenue report', 'Grüße aus Köln und 東京', 'Owner']) {
      assert.ok(
        lines.some((l) => l.includes(`| ${text} |`)),
        `missing the cell ${JSON.stringify(text)} in:\n${markdown}`,
      );
    }
    assert.ok(!markdown.includes('\u0000') && !markdown.includes('\u0001'), 'no flag byte read as a character');
  });
});

describe('text encoding: detected from the text, not its first 64 bytes', () => {
  // A CSV whose header row is plain ASCII: the legacy encoding shows only further on.
  const header = 'id,name,city,department,notes,created,updated,owner,status,priority\n';
  for (const [encoding, body] of [
    ['windows-1251', '1,Иван Петров,Москва,Бухгалтерия,Счета хранятся десять лет\n2,Мария Иванова,Казань,Кадры,Отпуск тридцать дней\n'],
    ['Shift_JIS', '1,山田太郎,東京,経理部,請求書は十年間保管します\n2,佐藤花子,大阪,人事部,休暇は年に三十日です\n'],
    ['windows-1253', '1,Γιώργος Παπαδόπουλος,Αθήνα,Λογιστήριο,Τα τιμολόγια φυλάσσονται δέκα χρόνια\n'],
  ] as const) {
    it(`${encoding} after a long ASCII header row`, () => {
      assert.ok(header.length > 64);
      const decoded = decodeLegacyText(iconv.encode(header + body, encoding));
      assert.equal(decoded.text, header + body, `read as ${decoded.encoding}`);
    });
  }
});

describe('new chat: starts from the default store, never with the previous chat’s stores', () => {
  const chosen = [
    { id: 'vs_legal', name: 'legal' },
    { id: 'vs_finance', name: 'finance' },
  ];
  it('without a default store: no stores', () => {
    const session = new ChatSession(new ConversationStore(new MemoryState()), testEnvironment());
    session.setGrounding(chosen);
    const previous = session.current.id;
    session.newChat();
    assert.notEqual(session.current.id, previous);
    assert.deepEqual(groundingStores(session.current.options), []);
    session.dispose();
  });
  it('with a default store: that one only', () => {
    const session = new ChatSession(
      new ConversationStore(new MemoryState()),
      testEnvironment({ defaultStore: () => ({ id: 'vs_handbook', name: 'handbook' }) }),
    );
    session.setGrounding(chosen);
    session.newChat();
    assert.deepEqual(
      groundingStores(session.current.options).map((s) => s.id),
      ['vs_handbook'],
    );
    session.dispose();
  });
});
