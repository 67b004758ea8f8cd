/** What the status bar says. No `vscode` import (unit-tested). */
import { Commands, ViewIds } from '../common/constants';
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
      text: `$(watch) DocChat: Rate-limited (${rateLimitedSeconds} s)`,
      tooltip: `A rate limit is reached; DocChat waits ${rateLimitedSeconds} s before the next request.`,
      command: Commands.showOutput,
      warning: true,
    };
  }
  switch (state.kind) {
    case 'idle':
      return {
        text: '$(comment-discussion) DocChat: Not started',
        tooltip: 'DocChat starts when you use it: open its view, run one of its commands, or open the chat.',
        command: focusView,
        warning: false,
      };
    case 'starting':
      return {
        text: '$(loading~spin) DocChat: Starting',
        tooltip: 'Starting the local backend…',
        command: Commands.showOutput,
        warning: false,
      };
    case 'local':
      return {
        text: '$(server-environment) DocChat: Local',
        tooltip: `Local mode: the embedded backend at ${state.url}. Set "docchat.documents.url" to use a documents service.`,
        command: focusView,
        warning: false,
      };
    case 'remote':
      return { text: `$(cloud) DocChat: ${state.host}`, tooltip: `Connected to ${state.url}`, command: focusView, warning: false };
    case 'signedOut':
      return {
        text: '$(account) DocChat: Signed out',
        tooltip: `No token for ${state.host}. Click to set one.`,
        command: Commands.setDocumentsToken,
        warning: true,
      };
    case 'error':
      return { text: '$(error) DocChat: Error', tooltip: state.message, command: Commands.showOutput, warning: true };
  }
}
