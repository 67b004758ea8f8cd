/**
 * How stores and store files look in the tree: labels, descriptions, tooltips (markdown), icons
 * and contextValues. No `vscode` import, so every rule here is unit-tested.
 */
import * as l10n from '@vscode/l10n';
import { TERMINAL_FILE_STATUSES } from '../../api/documents/limits';
import type { FileObject, VectorStore, VectorStoreFile } from '../../api/documents/schemas';
import { timestampMs } from '../../common/timestamps';

export interface IconSpec {
  /** Codicon id, e.g. `loading~spin`. */
  id: string;
  /** Theme color id, e.g. `testing.iconPassed`. */
  color?: string;
}

export interface NodePresentation {
  label: string;
  description: string;
  /** Markdown without raw HTML; values are escaped. */
  tooltip: string;
  icon: IconSpec;
  /** Base name plus `+flags`, e.g. `storeFile+failed`. */
  contextValue: string;
  /** What a screen reader says for the row: the label and what the icon and description show. */
  accessibilityLabel: string;
}

/** Spoken status of a store file (the tree shows it as an icon, and as a description only when not completed). */
function spokenStatus(status: string): string {
  switch (status) {
    case 'in_progress':
      return l10n.t('converting');
    case 'completed':
      return l10n.t('converted');
    case 'failed':
      return l10n.t('conversion failed');
    case 'cancelled':
      return l10n.t('conversion cancelled');
    default:
      return l10n.t('status {0}', status.replace(/_/g, ' '));
  }
}

export function spokenFileStatus(status: string, lastError?: string | null): string {
  return status === 'failed' && lastError ? l10n.t('conversion failed: {0}', lastError) : spokenStatus(status);
}

export const ContextValues = {
  store: 'store',
  storeFile: 'storeFile',
  loadMore: 'loadMore',
  message: 'message',
} as const;

/** Characters that change meaning in a tooltip line or table cell (links, emphasis, HTML, cells). */
const MARKDOWN_SPECIAL = /[\\`*_[\]|<>~]/g;

/** Escapes text for a markdown tooltip so names and metadata are shown literally. */
export function escapeMarkdown(text: string): string {
  return text.replace(MARKDOWN_SPECIAL, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

/** `2024-05-01` for a service timestamp (seconds, or ms from 10^11; local date); '' when missing. */
export function formatDate(timestamp: number | null | undefined): string {
  const ms = timestampMs(timestamp);
  if (ms === undefined) {
    return '';
  }
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function formatDateTime(timestamp: number | null | undefined): string {
  const ms = timestampMs(timestamp);
  if (ms === undefined) {
    return '';
  }
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${formatDate(timestamp)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "expires in 3 days", "expires in 5 hours", "expired"; undefined when the store never expires. */
export function describeExpiry(expiresAt: number | null | undefined, nowSeconds: number): string | undefined {
  const expiresMs = timestampMs(expiresAt);
  if (expiresMs === undefined) {
    return undefined;
  }
  const left = Math.floor(expiresMs / 1000) - nowSeconds;
  if (left <= 0) {
    return l10n.t('expired');
  }
  if (left >= 86_400) {
    const days = Math.floor(left / 86_400);
    return days === 1 ? l10n.t('expires in 1 day') : l10n.t('expires in {0} days', days);
  }
  if (left >= 3_600) {
    const hours = Math.floor(left / 3_600);
    return hours === 1 ? l10n.t('expires in 1 hour') : l10n.t('expires in {0} hours', hours);
  }
  const minutes = Math.max(1, Math.floor(left / 60));
  return minutes === 1 ? l10n.t('expires in 1 minute') : l10n.t('expires in {0} minutes', minutes);
}

export function formatBytes(bytes: number | null | undefined): string {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes)) {
    return '';
  }
  if (bytes < 1024) {
    return `${bytes} B`;
  }
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A two-column markdown table of metadata, or a line saying there is none. */
export function metadataMarkdown(title: string, metadata: Record<string, string> | undefined): string {
  const entries = Object.entries(metadata ?? {});
  if (entries.length === 0) {
    return l10n.t('{0}: none', title);
  }
  const rows = entries.map(([k, v]) => `| ${escapeMarkdown(k)} | ${escapeMarkdown(v)} |`);
  return [l10n.t('{0}:', title), '', `| ${l10n.t('Key')} | ${l10n.t('Value')} |`, '|---|---|', ...rows].join('\n');
}

export function presentStore(store: VectorStore, nowSeconds: number): NodePresentation {
  const expiry = describeExpiry(store.expires_at, nowSeconds);
  const expiresMs = timestampMs(store.expires_at);
  const expired = expiresMs !== undefined && Math.floor(expiresMs / 1000) - nowSeconds <= 0;
  const counts = store.file_counts;
  const lines = [
    `**${escapeMarkdown(store.name || store.id)}**`,
    '',
    l10n.t('ID: {0}', `\`${store.id}\``),
    '',
    l10n.t('Created: {0}', formatDateTime(store.created_at) || l10n.t('unknown')),
  ];
  if (expiry) {
    lines.push('', l10n.t('Expiry: {0} ({1})', expiry, formatDateTime(store.expires_at)));
  }
  if (counts && typeof counts.total === 'number') {
    lines.push(
      '',
      l10n.t(
        'Files: {0} ({1} completed, {2} in progress, {3} failed)',
        counts.total,
        counts.completed ?? 0,
        counts.in_progress ?? 0,
        counts.failed ?? 0,
      ),
    );
  }
  if (typeof store.usage_bytes === 'number') {
    lines.push('', l10n.t('Size: {0}', formatBytes(store.usage_bytes)));
  }
  lines.push('', metadataMarkdown(l10n.t('Metadata'), store.metadata));
  const description = [formatDate(store.created_at), expiry].filter(Boolean).join(' · ');
  return {
    label: store.name || store.id,
    description,
    tooltip: lines.join('\n'),
    icon: expired ? { id: 'database', color: 'disabledForeground' } : { id: 'database' },
    contextValue: `${ContextValues.store}${expired ? '+expired' : ''}`,
    accessibilityLabel: [
      l10n.t('Vector store {0}', store.name || store.id),
      formatDate(store.created_at) && l10n.t('created {0}', formatDate(store.created_at)),
      expiry,
    ]
      .filter(Boolean)
      .join(', '),
  };
}

const STATUS_ICONS: Record<string, IconSpec> = {
  in_progress: { id: 'loading~spin' },
  completed: { id: 'check', color: 'testing.iconPassed' },
  failed: { id: 'error', color: 'testing.iconFailed' },
  cancelled: { id: 'circle-slash', color: 'disabledForeground' },
};

export function statusIcon(status: string): IconSpec {
  return STATUS_ICONS[status] ?? { id: 'question' };
}

/** Status values can be anything the service sends; flags keep only safe characters. */
function statusFlag(status: string): string {
  return status.replace(/[^A-Za-z0-9_-]/g, '_') || 'unknown';
}

export function presentStoreFile(file: VectorStoreFile, info: FileObject | undefined): NodePresentation {
  const name = info?.filename || file.id;
  const status = file.status;
  const lines = [
    `**${escapeMarkdown(name)}**`,
    '',
    l10n.t('ID: {0}', `\`${file.id}\``),
    '',
    l10n.t('Status: {0}', escapeMarkdown(status.replace(/_/g, ' '))),
  ];
  if (file.last_error) {
    lines.push('', l10n.t('Error: {0}', escapeMarkdown(file.last_error)));
  }
  lines.push('', l10n.t('Attached: {0}', formatDateTime(file.created_at) || l10n.t('unknown')));
  if (info && typeof info.bytes === 'number') {
    lines.push('', l10n.t('Size: {0}', formatBytes(info.bytes)));
  }
  lines.push('', metadataMarkdown(l10n.t('Metadata (in this store)'), file.metadata));
  if (info) {
    lines.push('', metadataMarkdown(l10n.t('Metadata (file)'), info.metadata));
  }
  const known = status in STATUS_ICONS;
  const description =
    status === 'completed'
      ? ''
      : status === 'failed' && file.last_error
        ? l10n.t('failed: {0}', file.last_error)
        : status.replace(/_/g, ' ');
  return {
    label: name,
    description: known ? description : l10n.t('status: {0}', status),
    tooltip: lines.join('\n'),
    icon: statusIcon(status),
    contextValue: `${ContextValues.storeFile}+${statusFlag(status)}`,
    accessibilityLabel: `${name}, ${spokenFileStatus(status, file.last_error)}`,
  };
}

/** Unknown statuses are not terminal: they are polled (with backoff) like `in_progress`. */
export function isTerminalStatus(status: string): boolean {
  return TERMINAL_FILE_STATUSES.includes(status);
}

/** A line of text in the tree (an empty store, an error) and the "Load more…" row. */
export interface RowPresentation {
  label: string;
  description?: string;
  /** Only what the row does not show already (VS Code reads a plain tooltip instead of the row). */
  tooltip?: string;
  accessibilityLabel: string;
}

export function presentMessage(text: string, detail?: string): RowPresentation {
  const extra = detail && detail !== text ? detail : undefined;
  return { label: text, tooltip: extra, accessibilityLabel: extra ? `${text} ${extra}` : text };
}

export function presentLoadMore(shown: number): RowPresentation {
  return {
    label: l10n.t('Load more…'),
    description: l10n.t('{0} shown', shown),
    accessibilityLabel: l10n.t('Load more, {0} shown', shown),
  };
}

/**
 * What was typed into a store picker when it names no store (no store's name contains it, case
 * and spaces aside): a query to search for, not a filter. Undefined when it is empty or names one.
 */
export function typedQuery(value: string, storeNames: readonly string[]): string | undefined {
  const typed = value.trim();
  if (!typed) return undefined;
  const folded = typed.toLowerCase().replace(/\s+/g, '');
  return storeNames.some((name) => name.toLowerCase().replace(/\s+/g, '').includes(folded)) ? undefined : typed;
}

/**
 * The file picker rows of a store's files: each file by its name, its status when it is not
 * ready, and its id only when another file of the list has the same name (the id is what tells
 * them apart; otherwise it is noise to the reader). A file without a name is named by its id.
 */
export function fileChoiceRows(
  files: readonly { id: string; status: string }[],
  nameOf: (id: string) => string | undefined,
): { label: string; description?: string; detail?: string; fileId: string }[] {
  const named = files.map((f) => ({ file: f, name: nameOf(f.id) || '' }));
  const count = new Map<string, number>();
  for (const { name } of named) if (name) count.set(name, (count.get(name) ?? 0) + 1);
  return named.map(({ file, name }) => ({
    label: name || file.id,
    ...(file.status === 'completed' ? {} : { description: spokenFileStatus(file.status) }),
    ...(name && count.get(name)! > 1 ? { detail: file.id } : {}),
    fileId: file.id,
  }));
}
