/**
 * The chat panel as VS Code shows it, without VS Code: the built webview bundle (dist/webview) in
 * Chromium, inside a page that carries what VS Code 1.100 gives a webview in a theme — the
 * `--vscode-*` variables, `--text-link-decoration`, the body classes and the default webview styles,
 * captured from code-server by test/support/themes/capture.ts into test/fixtures/themes/. The page
 * is the editor area (VS Code puts a webview panel on the editor background).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { HostMessage } from '../../../src/chatCore/protocol';
import { CHROMIUM_ARGS, CHROMIUM_PATH, repoRoot } from '../harness';

export interface ThemeCapture {
  theme: string;
  bodyClasses: string[];
  variables: Record<string, string>;
  defaultStyles: string;
}

export const THEME_FILES = ['light-plus', 'dark-plus', 'hc-dark', 'hc-light'] as const;

export function loadTheme(file: (typeof THEME_FILES)[number]): ThemeCapture {
  return JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/themes', `${file}.json`), 'utf8')) as ThemeCapture;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function pageHtml(theme: ThemeCapture, bodyClasses: string[]): string {
  const webview = path.join(repoRoot, 'dist/webview');
  const url = (file: string) => pathToFileURL(path.join(webview, file)).href;
  const style = Object.entries(theme.variables)
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
  return `<!DOCTYPE html>
<html lang="en" style="${escapeHtml(style)}">
<head><meta charset="utf-8"><title>DocChat</title>
<style id="_defaultStyles">${theme.defaultStyles}</style>
<style>html { background: var(--vscode-editor-background); }</style>
<link rel="stylesheet" href="${url('codicons/codicon.css')}">
<link rel="stylesheet" href="${url('chat.css')}">
<script>
  window.__posted = [];
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => undefined });
</script></head>
<body class="${escapeHtml(bodyClasses.join(' '))}" data-vscode-theme-kind="${escapeHtml(theme.bodyClasses[0] ?? '')}">
<div id="app" class="app" aria-busy="true"></div>
<script src="${url('chat.js')}"></script>
</body></html>`;
}

export class PanelBrowser {
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-a11y-'));
  private constructor(readonly browser: Browser) {}

  /**
   * One browser for a `describe` block: launched before its tests and closed after them. The
   * returned function gives the browser inside a test.
   */
  static perSuite(): () => PanelBrowser {
    let panels: PanelBrowser | undefined;
    before(async () => {
      panels = await PanelBrowser.launch();
    });
    after(async () => {
      await panels?.close();
    });
    return () => {
      if (!panels) throw new Error('the panel browser was not launched');
      return panels;
    };
  }

  static async launch(): Promise<PanelBrowser> {
    if (!existsSync(path.join(repoRoot, 'dist/webview/chat.js'))) throw new Error('dist/webview/chat.js is missing: run node esbuild.mjs');
    return new PanelBrowser(await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS }));
  }

  /** A fresh panel in `theme` (extra body classes such as `vscode-reduce-motion`). */
  async open(theme: ThemeCapture, options: { extraClasses?: string[]; reducedMotion?: 'reduce' | 'no-preference' } = {}): Promise<Page> {
    const file = path.join(this.dir, `${Math.random().toString(36).slice(2)}.html`);
    writeFileSync(file, pageHtml(theme, [...theme.bodyClasses, ...(options.extraClasses ?? [])]));
    const page = await this.browser.newPage({
      viewport: { width: 700, height: 900 },
      reducedMotion: options.reducedMotion ?? 'no-preference',
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
    if (errors.length) throw new Error(`the panel failed: ${errors.join('\n')}`);
    return page;
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}

/** Posts host messages to the panel, each as its own task (as the host's are), and waits a frame. */
export async function deliver(page: Page, ...messages: HostMessage[]): Promise<void> {
  await page.evaluate(async (list) => {
    for (const message of list) {
      await new Promise<void>((resolve) => {
        window.addEventListener('message', () => setTimeout(resolve), { once: true });
        window.postMessage(message, '*');
      });
    }
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  }, messages);
  // Code blocks are highlighted once the panel's highlight.js has loaded: checks see the colours.
  await page.waitForFunction(() => document.querySelector('code.hljs-pending') === null);
}

export async function loadAxe(page: Page): Promise<void> {
  await page.addScriptTag({ path: path.join(repoRoot, 'node_modules/axe-core/axe.min.js') });
}

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string; summary: string }>;
}

/** axe-core over WCAG 2.0/2.1 A and AA and best practices; every finding with its impact. */
export async function runAxe(page: Page): Promise<AxeFinding[]> {
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{
            violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300) })),
    }));
  });
}
