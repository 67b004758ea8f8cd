import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { MetadataDraft } from '../../../../src/features/stores/metadataDraft';
import { editMetadata, entryValidator } from '../../../../src/features/stores/metadataEditor';
import { eventually } from './fixtures';

describe('metadata editor (extension host)', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  });

  it('refuses entries over a limit with an error naming it, and only warns about replacing a key', () => {
    const full = new MetadataDraft(Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'])));
    const validate = entryValidator(full, undefined);
    const tooMany = validate('extra=1');
    assert.equal(tooMany?.severity, vscode.InputBoxValidationSeverity.Error);
    assert.match(tooMany!.message, /at most 16 pairs/);
    const longKey = validate(`${'x'.repeat(65)}=1`);
    assert.equal(longKey?.severity, vscode.InputBoxValidationSeverity.Error);
    assert.match(longKey!.message, /at most 64 characters/);
    const longValue = entryValidator(new MetadataDraft(), undefined)(`k=${'v'.repeat(513)}`);
    assert.match(longValue!.message, /at most 512 characters/);
    const replace = validate('k1=new');
    assert.equal(replace?.severity, vscode.InputBoxValidationSeverity.Warning, 'replacing a key may be accepted');
    assert.equal(entryValidator(full, 'k1')('k1=new'), undefined, 'editing a pair of a full draft is fine');
  });

  it('shows the current pairs in a real quick pick and saves them unchanged on accept', async () => {
    const saved: Array<Record<string, string>> = [];
    const result = editMetadata({
      title: 'Metadata test',
      initial: { team: 'platform', owner: 'ana' },
      saveLabel: 'Save',
      save: async (metadata) => {
        saved.push(metadata);
      },
      onSaveError: (error) => assert.fail(String(error)),
    });
    // The first item ("Save") is active when the editor opens; accept it as Enter would.
    await eventually(async () => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return saved.length > 0;
    }, 'the editor to save');
    assert.deepEqual(await result, { team: 'platform', owner: 'ana' });
    assert.deepEqual(saved, [{ team: 'platform', owner: 'ana' }]);
  });

  it('reopens with the same pairs when saving fails, and saves them on the next try', async () => {
    let attempts = 0;
    const errors: unknown[] = [];
    const result = editMetadata({
      title: 'Metadata retry test',
      initial: { chapter: '2' },
      saveLabel: 'Save',
      save: async (metadata) => {
        attempts++;
        if (attempts === 1) throw new Error('service unavailable');
        assert.deepEqual(metadata, { chapter: '2' });
      },
      onSaveError: (error) => errors.push(error),
    });
    await eventually(async () => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return attempts >= 2;
    }, 'two save attempts');
    assert.deepEqual(await result, { chapter: '2' });
    assert.equal(errors.length, 1);
  });
});
