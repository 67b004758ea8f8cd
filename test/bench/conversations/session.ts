/**
 * A conversation set opened for a benchmark: read from its folder, each domain indexed by the
 * backend in its own process (the index kept in a cache folder between runs), and the
 * conversations of the set, each with the task of each of its turns. The follow-up benchmark
 * (conversations.ts) and the public answer benchmark (answersPublic.ts) share it.
 */
import { DocumentsClient } from '../../../src/api/documents/client';
import { cacheFolder, type Collection, dataFolder, type DomainStore, indexDomains, readCollection, type Task } from './collection';
import { repoRoot, startBackendProcess } from '../lib/backendProcess';
import { progress } from '../lib/report';

export interface ConversationSet {
  collection: Collection;
  /** The backend's data folder for this set, outside the repository. */
  cache: string;
  client: DocumentsClient;
  stores: Map<string, DomainStore>;
  close(): Promise<void>;
}

/** The set found by `dataFolder` (undefined, with a message saying where to put it, when there is none). */
export function findCollection(): Collection | undefined {
  const folder = dataFolder(repoRoot);
  if (!folder) {
    progress(
      "no conversation set found: pass --data DIR, set DOCCHAT_CONVERSATIONS, or put one in shared/benchmarks/conversations above the repository (a folder with corpus.jsonl and tasks.jsonl in MT-RAG's layout); skipped.",
    );
    return undefined;
  }
  return readCollection(folder);
}

/** The backend started on the set's cache and every domain indexed (built once, then reused). */
export async function openConversationSet(collection: Collection, token: string): Promise<ConversationSet> {
  const cache = cacheFolder(collection);
  progress(
    `${collection.folder}: ${collection.passages.length.toLocaleString('en')} passages, ${collection.tasks.length} tasks; index kept in ${cache}`,
  );
  const backend = await startBackendProcess(cache, token);
  const client = new DocumentsClient({ baseUrl: backend.url, token, rateLimits: false });
  const close = async () => {
    await client.close();
    await backend.stop();
  };
  try {
    return { collection, cache, client, stores: await indexDomains(client, collection, cache), close };
  } catch (error) {
    await close();
    throw error;
  }
}

export interface Conversation {
  id: string;
  domain: string;
  /** The whole conversation: its longest task's turns. */
  turns: Task['turns'];
  /** The task of each turn that has one, by turn number (1-based). */
  tasks: Map<number, Task>;
}

/** The conversations, each as its longest task's turns, with the tasks of each of its turns. */
export function conversations(collection: Collection): Conversation[] {
  const byId = new Map<string, Task[]>();
  for (const task of collection.tasks) byId.set(task.conversationId, [...(byId.get(task.conversationId) ?? []), task]);
  return [...byId.entries()].map(([id, tasks]) => {
    const longest = tasks.reduce((a, b) => (b.turns.length > a.turns.length ? b : a));
    return { id, turns: longest.turns, domain: longest.domain, tasks: new Map(tasks.map((t) => [t.turn, t])) };
  });
}
