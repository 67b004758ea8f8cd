/**
 * Language-model servers Local mode can forward chat to: detection of OpenAI-compatible servers
 * on this machine's usual ports, probing a URL the user gives, and the choice that is kept.
 * No `vscode` import: detection is unit-tested against real servers on 127.0.0.1.
 */
import * as z from 'zod';
import { chatCapable } from '../common/chatCapability';
import type { ModelServerChoice } from './modelServerMemory';

export interface ModelServerCandidate {
  /** What the server usually is on that port ("Ollama", "LM Studio", …). */
  name: string;
  port: number;
  /** Also ask Ollama's own model list (`/api/tags`) when `/v1/models` does not answer. */
  ollama?: boolean;
}

/** The ports the usual local servers listen on by default. */
export const DEFAULT_MODEL_SERVER_CANDIDATES: readonly ModelServerCandidate[] = [
  { name: 'Ollama', port: 11434, ollama: true },
  { name: 'LM Studio', port: 1234 },
  { name: 'llama.cpp', port: 8080 },
  { name: 'vLLM', port: 8000 },
];

/** How long one probe may take before the port is skipped. */
export const PROBE_TIMEOUT_MS = 1500;
/** A model list larger than this is not what a model server sends. */
const MAX_LIST_BYTES = 1_000_000;

const openAiList = z.object({ data: z.array(z.object({ id: z.string().min(1) }).passthrough()) }).passthrough();
const ollamaTags = z.object({ models: z.array(z.object({ name: z.string().min(1) }).passthrough()) }).passthrough();

export interface ProbedServer {
  /** OpenAI-compatible base URL (ending in `/v1`), what the backend forwards to. */
  url: string;
  models: string[];
  /** Which list answered: `/v1/models` (openai) or Ollama's `/api/tags`. */
  shape: 'openai' | 'ollama';
}

export interface DetectedServer extends ProbedServer {
  name: string;
  port: number;
}

export interface ProbeOptions {
  key?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** `http://host:port`, `…/v1` or `…/v1/` all name the same server; returns the `/v1` base. */
export function modelServerBase(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, '');
  return /\/v\d+$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/** Embedding models cannot chat; the picker leaves them out. */
function chatModels(ids: readonly string[]): string[] {
  return [...new Set(ids)].filter((id) => !/embed/i.test(id));
}

async function getJson(url: string, options: ProbeOptions, body?: unknown): Promise<unknown> {
  const signals = [AbortSignal.timeout(options.timeoutMs ?? PROBE_TIMEOUT_MS)];
  if (options.signal) signals.push(options.signal);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  // The signal bounds the body too: a server that sends headers and then stalls is cut off.
  const response = await fetch(url, {
    headers,
    signal: AbortSignal.any(signals),
    redirect: 'error',
    ...(body !== undefined ? { method: 'POST', body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${response.status}`);
  }
  const text = await response.text();
  if (text.length > MAX_LIST_BYTES) throw new Error('model list too large');
  return JSON.parse(text);
}

/** `ids` without the models the server says cannot chat (see common/chatCapability.ts). */
function withoutNonChat(base: string, ids: string[], options: ProbeOptions & { ollama?: boolean }): Promise<string[]> {
  const origin = new URL(base).origin;
  return chatCapable(ids, (path, body) => getJson(`${origin}${path}`, options, body), {
    ollama: options.ollama === true,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/**
 * Asks `url` for its models: `GET <base>/models` (OpenAI's shape), then, when `ollama` is set,
 * Ollama's `GET /api/tags`. Models the server says cannot chat (see `withoutNonChat`) are left
 * out. Resolves to undefined when neither answers with a model list within the timeout (a port
 * that answers something else, refuses, or hangs); never rejects.
 */
export async function probeModelServer(url: string, options: ProbeOptions & { ollama?: boolean } = {}): Promise<ProbedServer | undefined> {
  const base = modelServerBase(url);
  try {
    const list = openAiList.safeParse(await getJson(`${base}/models`, options));
    if (list.success) {
      return { url: base, models: await withoutNonChat(base, chatModels(list.data.data.map((m) => m.id)), options), shape: 'openai' };
    }
  } catch {
    // Not an OpenAI-compatible list: try Ollama's own below, or give up.
  }
  if (options.ollama && !options.signal?.aborted) {
    try {
      const tags = ollamaTags.safeParse(await getJson(`${new URL(base).origin}/api/tags`, options));
      if (tags.success) {
        return { url: base, models: await withoutNonChat(base, chatModels(tags.data.models.map((m) => m.name)), options), shape: 'ollama' };
      }
    } catch {
      // Nothing there.
    }
  }
  return undefined;
}

/** Probes every candidate on 127.0.0.1 at once; each probe is bounded by the timeout. */
export async function detectModelServers(
  candidates: readonly ModelServerCandidate[] = DEFAULT_MODEL_SERVER_CANDIDATES,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<DetectedServer[]> {
  const found = await Promise.all(
    candidates.map(async (c) => {
      const probed = await probeModelServer(`http://127.0.0.1:${c.port}`, { ...options, ollama: c.ollama });
      return probed ? { ...probed, name: c.name, port: c.port } : undefined;
    }),
  );
  return found.filter((s): s is DetectedServer => s !== undefined);
}

/**
 * Candidates from `DOCCHAT_MODEL_SERVER_PORTS` (comma-separated ports, `port/ollama` for an
 * Ollama-shaped one) when set, for tests; else the usual ports.
 */
export function modelServerCandidates(env: string | undefined): readonly ModelServerCandidate[] {
  const ports = (env ?? '')
    .split(',')
    .map((p) => /^\s*(\d{1,5})(\/ollama)?\s*$/.exec(p))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) > 0 && Number(m[1]) < 65536);
  return ports.length
    ? ports.map((m) => ({ name: `Server on port ${m[1]}`, port: Number(m[1]), ...(m[2] ? { ollama: true } : {}) }))
    : DEFAULT_MODEL_SERVER_CANDIDATES;
}

export type { ModelServerChoice } from './modelServerMemory';
export { ModelServerMemory } from './modelServerMemory';

const choiceSchema = z.object({ url: z.string().url(), model: z.string().min(1), name: z.string(), hasKey: z.boolean() });

/** A kept choice as it was stored, or undefined when it is missing or not a choice. */
export function parseModelServerChoice(value: unknown): ModelServerChoice | undefined {
  const parsed = choiceSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
