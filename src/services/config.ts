import * as vscode from 'vscode';
import { SETTINGS_SECTION, Settings, VsCodeSettings, type SettingKey } from '../common/constants';
import { Disposable } from '../common/lifecycle';
import { normaliseSettings, type DocChatSettings, type RawSettings } from './settingsModel';

/**
 * Settings that decide where a token is sent. They are contributed with `"scope": "machine"`;
 * reading only the user (global) value as well means a workspace's `.vscode/settings.json`
 * can never redirect a token, even in hosts that would honour a workspace value.
 */
const USER_ONLY: readonly SettingKey[] = [
  Settings.documentsUrl,
  Settings.gatewayUrl,
  Settings.proxy,
  Settings.caFiles,
  Settings.strictSSL,
  Settings.allowInsecureHttp,
  Settings.skipOcrField,
  Settings.fileIdsField,
  // An agent may change stores only when the user, not a workspace, allowed it.
  Settings.mcpAllowChanges,
];

export interface SettingsChange {
  readonly settings: DocChatSettings;
  affects(key: SettingKey): boolean;
  /** True when one of VS Code's `http.*` proxy settings changed. */
  readonly affectsHttp: boolean;
}

export class ConfigService extends Disposable {
  private _current: DocChatSettings;
  private readonly _onDidChange = this._register(new vscode.EventEmitter<SettingsChange>());
  readonly onDidChange = this._onDidChange.event;

  constructor() {
    super();
    this._current = readSettings();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        const affectsHttp = Object.values(VsCodeSettings).some((k) => e.affectsConfiguration(k));
        if (!e.affectsConfiguration(SETTINGS_SECTION) && !affectsHttp) {
          return;
        }
        this._current = readSettings();
        this._onDidChange.fire({
          settings: this._current,
          affects: (key) => e.affectsConfiguration(`${SETTINGS_SECTION}.${key}`),
          affectsHttp,
        });
      }),
    );
  }

  get current(): DocChatSettings {
    return this._current;
  }

  /** False when the user turned off walkthroughs that open by themselves after installing. */
  get walkthroughsOpenOnInstall(): boolean {
    return vscode.workspace.getConfiguration().get<boolean>(VsCodeSettings.walkthroughsOpenOnInstall) !== false;
  }

  /** The folder sync's settings for one folder (they may differ per workspace folder). */
  forFolder(folder: vscode.Uri): FolderSyncSettings {
    return readFolderSyncSettings(folder);
  }

  /** Writes a user-level value (the only level the URL settings are read from). */
  async update(key: SettingKey, value: unknown): Promise<void> {
    await vscode.workspace.getConfiguration(SETTINGS_SECTION).update(key, value, vscode.ConfigurationTarget.Global);
  }
}

export function readSettings(): DocChatSettings {
  const section = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const docchat: RawSettings['docchat'] = {};
  for (const key of Object.values(Settings)) {
    if (USER_ONLY.includes(key)) {
      const inspected = section.inspect(key);
      docchat[key] = inspected?.globalValue ?? inspected?.defaultValue;
    } else {
      docchat[key] = section.get(key);
    }
  }
  const root = vscode.workspace.getConfiguration();
  return normaliseSettings({
    docchat,
    httpProxy: root.get(VsCodeSettings.httpProxy),
    httpNoProxy: root.get(VsCodeSettings.httpNoProxy),
    httpProxyStrictSSL: root.get(VsCodeSettings.httpProxyStrictSSL),
    httpProxyAuthorization: root.get(VsCodeSettings.httpProxyAuthorization),
    httpSystemCertificates: root.get(VsCodeSettings.httpSystemCertificates),
  });
}

/** What a folder sync does with store files whose workspace file was deleted. */
export type RemoveDeleted = 'ask' | 'always' | 'never';

/** The settings a folder sync reads for one folder, resource-scoped (VS Code's `files.exclude` included). */
export interface FolderSyncSettings {
  /** `files.exclude` globs that are on, then `docchat.sync.exclude`. */
  exclude: string[];
  removeDeleted: RemoveDeleted;
  /** `docchat.sync.watch`: re-sync the folder's saved, created and deleted files. */
  watch: boolean;
}

export function readFolderSyncSettings(folder: vscode.Uri): FolderSyncSettings {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder);
  const filesExclude = vscode.workspace.getConfiguration('files', folder).get<Record<string, unknown>>('exclude') ?? {};
  const removeDeleted = config.get<string>(Settings.syncRemoveDeleted, 'ask');
  return {
    exclude: [
      ...Object.entries(filesExclude)
        .filter(([, on]) => on === true)
        .map(([glob]) => glob),
      ...(config.get<unknown[]>(Settings.syncExclude) ?? []).filter((g): g is string => typeof g === 'string' && g.trim() !== ''),
    ],
    removeDeleted: removeDeleted === 'always' || removeDeleted === 'never' ? removeDeleted : 'ask',
    watch: config.get<boolean>(Settings.syncWatch, false) === true,
  };
}
