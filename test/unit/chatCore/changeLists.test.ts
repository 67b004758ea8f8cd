import * as assert from 'node:assert/strict';
import { asksAboutChanges, isChangeListPassage, isChangeSection } from '../../../src/common/changeLists';
import { FileNameCache, findPassages, weighChangeLists, type GroundingDocuments } from '../../../src/chatCore/grounding';
import type { PassageSource } from '../../../src/chatCore/protocol';

// A changelog's entries name the feature they changed in its own words: grounding ranks them after
// the guide's passages on that feature unless the question asks what changed.

const passage = (fileId: string, filename: string, score: number, content: string, heading?: string): PassageSource => ({
  kind: 'passage',
  storeId: 'vs_1',
  fileId,
  filename,
  content,
  score,
  ...(heading ? { heading } : {}),
});

describe('lists of changes in grounding', () => {
  it('knows a list of changes by its file name or by a release heading above a change section', () => {
    for (const filename of ['CHANGELOG.md', 'changelog', 'CHANGES.rst', 'RELEASE_NOTES.txt', 'docs/release-notes.md']) {
      assert.ok(isChangeListPassage({ filename }), filename);
    }
    assert.ok(isChangeListPassage({ filename: 'notes.md', heading: 'Releases > [1.2.0] - 2026-01-05 > Fixed' }));
    assert.ok(isChangeListPassage({ filename: 'product.md', heading: 'Product > v2.1 > Bug fixes' }));
    assert.ok(isChangeListPassage({ filename: 'product.md', heading: 'Changes > Unreleased > Added' }));
    // A guide's own "Security" or "Features" section is not a list of changes.
    assert.ok(!isChangeListPassage({ filename: 'README.md', heading: 'DocChat > Security' }));
    assert.ok(!isChangeListPassage({ filename: 'guide.md', heading: 'Guide > Features' }));
    assert.ok(!isChangeListPassage({ filename: 'guide.md', heading: 'Guide > Upgrading to 1.2 > Security' }));
    assert.ok(!isChangeListPassage({ filename: 'history-of-rome.md' }));
    // HISTORY and NEWS are lists of changes when their sections are releases, not otherwise.
    assert.ok(isChangeListPassage({ filename: 'HISTORY.rst', heading: 'History > 2.31.0 (2023-05-22)' }));
    assert.ok(isChangeListPassage({ filename: 'NEWS', heading: 'v1.4 > Fixed' }));
    assert.ok(!isChangeListPassage({ filename: 'history.md', heading: 'Our history > The first office' }));
    assert.ok(!isChangeListPassage({ filename: 'news.md', heading: 'Company news > Summer party' }));
    assert.ok(!isChangeListPassage({}));
    assert.ok(isChangeSection('### Fixed') && isChangeSection('[1.2.0] - 2026-01-05') && !isChangeSection('Folder sync'));
  });

  it('tells a question about changes from one that only says "new" or "when"', () => {
    for (const q of [
      'What changed in 1.2?',
      'What was added in the last release?',
      "What's new?",
      'Since which version is sync there?',
      'Was the proxy bug fixed?',
    ]) {
      assert.ok(asksAboutChanges(q), q);
    }
    for (const q of ['How do I start a new conversation?', 'What happens when the limit is reached?', 'How do I attach a whole folder?']) {
      assert.ok(!asksAboutChanges(q), q);
    }
  });

  it('ranks a changelog entry after the guide for a question about the feature, and keeps the service’s scores', () => {
    const entry = passage(
      'f1',
      'CHANGELOG.md',
      0.9,
      '- Sync Folder to Vector Store now asks once how to convert the folder.',
      'Changelog > [Unreleased] > Changed',
    );
    const guide = passage(
      'f2',
      'user-guide.md',
      0.8,
      'Sync Folder to Vector Store… compares the folder with the store.',
      'Guide > Folder sync',
    );
    const other = passage('f3', 'README.md', 0.2, 'The folder view lists stores.');
    const weighed = weighChangeLists([entry, guide, other], 'How do I sync a folder?');
    assert.deepEqual(
      weighed.map((p) => p.fileId),
      ['f2', 'f1', 'f3'],
    );
    assert.deepEqual(
      weighed.map((p) => p.score),
      [0.8, 0.9, 0.2],
    );
    // Asked what changed, the changelog keeps its place.
    assert.deepEqual(
      weighChangeLists([entry, guide, other], 'What changed in folder sync?').map((p) => p.fileId),
      ['f1', 'f2', 'f3'],
    );
    // Weighed between the search's lowest score and its own: below zero it stays below the rest.
    const low = passage('f4', 'guide.md', -0.5, 'Folder sync.');
    const negative = weighChangeLists([{ ...entry, score: -0.1 }, { ...guide, score: -0.2 }, low], 'How do I sync a folder?');
    assert.deepEqual(
      negative.map((p) => p.fileId),
      ['f2', 'f1', 'f4'],
    );
    // Without a score for every passage, the service's order stands.
    const unscored: PassageSource = { ...guide, score: undefined as unknown as number };
    assert.deepEqual(
      weighChangeLists([entry, unscored], 'How do I sync a folder?').map((p) => p.fileId),
      ['f1', 'f2'],
    );
  });

  it('grounds a chat question in the guide first when the changelog entry scores higher', async () => {
    const results = [
      {
        score: 0.9,
        content: '- Folder sync: Sync Folder to Vector Store asks once how to convert a folder.',
        file_id: 'f1',
        filename: 'CHANGELOG.md',
        heading: 'Changelog > [1.4.0] > Changed',
      },
      {
        score: 0.8,
        content: 'Sync Folder to Vector Store… keeps a store in step with a folder on your disk.',
        file_id: 'f2',
        filename: 'user-guide.md',
        heading: 'Guide > Folder sync',
      },
    ];
    const documents: GroundingDocuments = {
      search: async () => ({ data: results }),
      retrieveFile: async (fileId) => ({ filename: fileId }),
    };
    const ground = (question: string) =>
      findPassages(documents, { query: question, question, stores: [{ id: 'vs_1', name: 'docs' }], maxResults: 10 }, new FileNameCache());
    const howTo = await ground('How do I sync a folder to a store?');
    assert.deepEqual(
      howTo.passages.map((p) => p.filename),
      ['user-guide.md', 'CHANGELOG.md'],
    );
    const changes = await ground('What changed in folder sync?');
    assert.deepEqual(
      changes.passages.map((p) => p.filename),
      ['CHANGELOG.md', 'user-guide.md'],
    );
  });
});
