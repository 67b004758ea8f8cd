import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../common/lifecycle';
import type { ConnectionService } from './connection';
import type { RateLimitMonitor } from './rateLimits';
import { presentStatus } from './statusModel';

export class StatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('docchat.status', vscode.StatusBarAlignment.Left, 50));
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly connection: ConnectionService,
    private readonly rateLimits: RateLimitMonitor,
  ) {
    super();
    this.item.name = 'DocChat';
    this._register(connection.onDidChange(() => this.update()));
    this._register(rateLimits.onDidChange(() => this.update()));
    this._register(toDisposable(() => this.stopTicker()));
    this.update();
    this.item.show();
  }

  private update(): void {
    const wait = this.rateLimits.current();
    const seconds = wait ? Math.ceil((wait.until - Date.now()) / 1000) : 0;
    const p = presentStatus(this.connection.state, seconds);
    this.item.text = p.text;
    this.item.tooltip = p.tooltip;
    this.item.accessibilityInformation = { label: p.accessibilityLabel };
    this.item.command = p.command;
    this.item.backgroundColor = p.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    // Count the seconds down while a wait runs, and stop ticking afterwards.
    if (seconds > 0 && !this.ticker) {
      this.ticker = setInterval(() => this.update(), 1000);
    } else if (seconds === 0) {
      this.stopTicker();
    }
  }

  private stopTicker(): void {
    if (this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }
}
