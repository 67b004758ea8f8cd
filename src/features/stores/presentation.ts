/**
 * How stores and store files look in the tree: labels, descriptions, tooltips (markdown), icons
 * and contextValues. No `vscode` import, so every rule here is unit-tested.
 */
import { TERMINAL_FILE_STATUSES, type FileObject, type VectorStore, type VectorStoreFile } from '../../api/documents/schemas';
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
const SPOKEN_STATUS: Record<string, string> = {
  in_progress: 'converting',
  completed: 'converted',
  failed: 'conversion failed',
  cancelled: 'conversion cancelled',
};

export function spokenFileStatus(status: string, lastError?: string | null): string {
  const spoken = SPOKEN_STATUS[status] ?? `status ${status.replace(/_/g, ' ')}`;
  return status === 'failed' && lastError ? `${spoken}: ${lastError}` : spoken;
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
    return 'expired';
  }
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (left >= 86_400) {
    return `expires in ${plural(Math.floor(left / 86_400), 'day')}`;
  }
  if (left >= 3_600) {
    return `expires in ${plural(Math.floor(left / 3_600), 'hour')}`;
  }
  return `expires in ${plural(Math.max(1, Math.floor(left / 60)), 'minute')}`;
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
    return `${title}: none`;
  }
  const rows = entries.map(([k, v]) => `| ${escapeMarkdown(k)} | ${escapeMarkdown(v)} |`);
  return [`${title}:`, '', '| Key | Value |', '|---|---|', ...rows].join('\n');
}

export function presentStore(store: VectorStore, nowSeconds: number): NodePresentation {
  const expiry = describeExpiry(store.expires_at, nowSeconds);
  const counts = store.file_counts;
  const lines = [
    `**${escapeMarkdown(store.name || store.id)}**`,
    '',
    `ID: \`${store.id}\``,
    '',
    `Created: ${formatDateTime(store.created_at) || 'unknown'}`,
  ];
  if (expiry) {
    lines.push('', `Expiry: ${expiry} (${formatDateTime(store.expires_at)})`);
  }
  if (counts && typeof counts.total === 'number') {
    lines.push(
      '',
      `Files: ${counts.total} (${counts.completed ?? 0} completed, ${counts.in_progress ?? 0} in progress, ${counts.failed ?? 0} failed)`,
    );
  }
  if (typeof store.usage_bytes === 'number') {
    lines.push('', `Size: ${formatBytes(store.usage_bytes)}`);
  }
  lines.push('', metadataMarkdown('Metadata', store.metadata));
  const description = [formatDate(store.created_at), expiry].filter(Boolean).join(' · ');
  return {
    label: store.name || store.id,
    description,
    tooltip: lines.join('\n'),
    icon: expiry === 'expired' ? { id: 'database', color: 'disabledForeground' } : { id: 'database' },
    contextValue: `${ContextValues.store}${expiry === 'expired' ? '+expired' : ''}`,
    accessibilityLabel: [
      `Vector store ${store.name || store.id}`,
      formatDate(store.created_at) && `created ${formatDate(store.created_at)}`,
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
  const lines = [`**${escapeMarkdown(name)}**`, '', `ID: \`${file.id}\``, '', `Status: ${escapeMarkdown(status.replace(/_/g, ' '))}`];
  if (file.last_error) {
    lines.push('', `Error: ${escapeMarkdown(file.last_error)}`);
  }
  lines.push('', `Attached: ${formatDateTime(file.created_at) || 'unknown'}`);
  if (info && typeof info.bytes === 'number') {
    lines.push('', `Size: ${formatBytes(info.bytes)}`);
  }
  lines.push('', metadataMarkdown('Metadata (in this store)', file.metadata));
  if (info) {
    lines.push('', metadataMarkdown('Metadata (file)', info.metadata));
  }
  const known = status in STATUS_ICONS;
  const description =
    status === 'completed' ? '' : status === 'failed' && file.last_error ? `failed: ${file.last_error}` : status.replace(/_/g, ' ');
  return {
    label: name,
    description: known ? description : `status: ${status}`,
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
  return { label: 'Load more…', description: `${shown} shown`, accessibilityLabel: `Load more, ${shown} shown` };
}
