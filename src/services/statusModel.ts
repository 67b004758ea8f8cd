/** What the status bar says. No `vscode` import (unit-tested). */
import * as l10n from '@vscode/l10n';
import { Commands, ViewIds } from '../common/constants';
import { shownUrl } from '../common/shownUrl';
import type { ConnectionState } from './connection';

export interface StatusPresentation {
  text: string;
  tooltip: string;
  /** What a screen reader says for the item (the text without codicon ids, plus what it means). */
  accessibilityLabel: string;
  command: string;
  warning: boolean;
}

/** What the status bar says for a connection state and an optional rate-limit wait (in seconds). */
export function presentStatus(state: ConnectionState, rateLimitedSeconds: number): StatusPresentation {
  const p = presentStatusText(state, rateLimitedSeconds);
  return { ...p, accessibilityLabel: `${p.text.replace(/\$\([\w~-]+\)\s*/g, '')}. ${p.tooltip}` };
}

function presentStatusText(state: ConnectionState, rateLimitedSeconds: number): Omit<StatusPresentation, 'accessibilityLabel'> {
  const focusView = `${ViewIds.stores}.focus`;
  if (rateLimitedSeconds > 0) {
    return {
      text: l10n.t('$(watch) DocChat: Rate-limited ({0} s)', rateLimitedSeconds),
      tooltip: l10n.t('A rate limit is reached; DocChat waits {0} s before the next request.', rateLimitedSeconds),
      command: Commands.showOutput,
      warning: true,
    };
  }
  switch (state.kind) {
    case 'idle':
      return {
        text: l10n.t('$(comment-discussion) DocChat: Not started'),
        tooltip: l10n.t('DocChat starts when you use it: open its view, run one of its commands, or open the chat.'),
        command: focusView,
        warning: false,
      };
    case 'starting':
      return {
        text: l10n.t('$(loading~spin) DocChat: Starting'),
        tooltip: l10n.t('Starting the local backend…'),
        command: Commands.showOutput,
        warning: false,
      };
    case 'local':
      return {
        text: l10n.t('$(server-environment) DocChat: Local'),
        tooltip: l10n.t('Local mode: the embedded backend at {0}. Set "docchat.documents.url" to use a documents service.', state.url),
        command: focusView,
        warning: false,
      };
    case 'remote':
      return {
        text: `$(cloud) DocChat: ${state.host}`,
        tooltip: l10n.t('Connected to {0}', shownUrl(state.url)),
        command: focusView,
        warning: false,
      };
    case 'signedOut':
      return {
        text: l10n.t('$(account) DocChat: Signed out'),
        tooltip: l10n.t('No token for {0}. Click to set one.', state.host),
        command: Commands.setDocumentsToken,
        warning: true,
      };
    case 'error':
      return { text: l10n.t('$(error) DocChat: Error'), tooltip: state.message, command: Commands.showOutput, warning: true };
  }
}
