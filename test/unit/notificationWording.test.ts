/**
 * DocChat's notifications read one way: "DocChat: " and a sentence that goes on in lower case
 * ("DocChat: created the vector store …", "DocChat: attached … to …"), or a sentence with DocChat
 * (or @docchat) as its subject. Modal dialogs and questions are left to their own wording. The
 * sources are read as text: every notification whose message is written in the call is checked.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { summarizeAttach } from '../../src/features/stores/attachModel';
import { SRC, typeScriptFiles } from '../support/sourceFiles';

/** "DocChat: " then lower case, a quote, a number or a placeholder; or DocChat as the subject. */
const WORDING = /^(?:DocChat: [^A-Z]|DocChat [a-z]|@docchat )/;
/** Capitals that are a name, not the start of a sentence: a command's title. */
const NAMES = ['DocChat: Find People by Skill '];

function notifications(): Array<{ where: string; message: string }> {
  const found: Array<{ where: string; message: string }> = [];
  const call = /show(?:Information|Warning|Error)Message\(\s*(?:vscode\.)?l10n\.t\(\s*(['"])((?:(?!\1)[^\\]|\\.)*)\1/g;
  for (const file of typeScriptFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(call)) {
      const message = match[2]!;
      const rest = text.slice(match.index, match.index + 600);
      if (/modal:\s*true/.test(rest) || message.trimEnd().endsWith('?')) continue;
      found.push({ where: `${path.relative(SRC, file)}: ${message}`, message });
    }
  }
  return found;
}

describe('notification wording', () => {
  it('every notification written in a call starts "DocChat: " and goes on in lower case (or has DocChat as subject)', () => {
    const all = notifications();
    assert.ok(all.length > 20, `only ${all.length} notifications found: the pattern no longer matches the calls`);
    const odd = all.filter((n) => !WORDING.test(n.message) && !NAMES.some((name) => n.message.startsWith(name)));
    assert.deepEqual(
      odd.map((n) => n.where),
      [],
    );
  });

  it('the summary of attaching files, shown after "DocChat: ", goes on in lower case', () => {
    const file = { id: 'f', object: 'vector_store.file', created_at: 0, vector_store_id: 'vs', usage_bytes: 0, last_error: null };
    const messages = [
      summarizeAttach('h', [{ filename: 'a.md', file: { ...file, status: 'completed' } as never }]).message,
      summarizeAttach('h', [{ filename: 'a.md', cancelled: true }]).message,
      summarizeAttach('h', [{ filename: 'a.md', error: 'too large' }]).message,
    ];
    for (const message of messages) assert.match(`DocChat: ${message}`, WORDING, message);
  });
});
