import * as vscode from 'vscode';
import { SecretKeys } from '../../common/constants';
import type { Services } from '../../services';
import { atFirstUse } from '../../common/atFirstUse';
import type { ModelServerChoice } from '../../services/modelServerMemory';
import { localModelOrigin } from '../../chatCore/modelCatalog';
import type * as ModelServers from '../../services/modelServers';
import type { ProbedServer } from '../../services/modelServers';

/** Detection checks the servers' answers with zod: it loads when the command runs, not at activation. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const modelServers = atFirstUse(() => require('../../services/modelServers') as typeof ModelServers);

interface ServerItem extends vscode.QuickPickItem {
  pick?: { server: ProbedServer; name: string; model: string; key?: string };
  enterUrl?: true;
  stop?: true;
}

const ENTER_URL: ServerItem = {
  label: vscode.l10n.t('$(link) Enter a Server URL…'),
  description: vscode.l10n.t('any OpenAI-compatible server, with an optional key'),
  enterUrl: true,
  alwaysShow: true,
};

/**
 * "Use a Language Model…" (Local mode): pick a model of an OpenAI-compatible server found on this
 * machine's usual ports, or of a server at a URL the user gives. The local backend then forwards
 * chat to it, the chat's model picker lists its models beside `local-extractive`, and the chat
 * (the conversation it shows, whichever model was picked in it) and new chats answer with it.
 */

export async function useLanguageModel(services: Services, log: ReturnType<Services['log']['child']>): Promise<void> {
  const settings = services.config.current;
  if (settings.documentsUrl || settings.gatewayUrl) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'DocChat uses the models of your company gateway; "Use a Language Model…" is for Local mode, without a documents or gateway URL.',
      ),
    );
    return;
  }
  const current = services.modelServer.choice;
  const picker = vscode.window.createQuickPick<ServerItem>();
  picker.title = vscode.l10n.t('DocChat: Use a Language Model');
  picker.placeholder = settings.detectModelServers
    ? vscode.l10n.t('Looking for model servers on this machine…')
    : vscode.l10n.t('Enter the URL of an OpenAI-compatible server');
  picker.matchOnDescription = true;
  const fixed: ServerItem[] = [ENTER_URL];
  if (current) {
    fixed.push({
      label: vscode.l10n.t('$(circle-slash) Stop Using a Language Model'),
      description: vscode.l10n.t('{0} at {1}; back to local-extractive', current.model, current.url),
      stop: true,
      alwaysShow: true,
    });
  }
  picker.items = fixed;
  const abort = new AbortController();
  if (settings.detectModelServers) {
    picker.busy = true;
    const { detectModelServers, modelServerCandidates } = modelServers();
    void detectModelServers(modelServerCandidates(process.env.DOCCHAT_MODEL_SERVER_PORTS), { signal: abort.signal }).then((servers) => {
      log.info(`Model servers found: ${servers.map((s) => `${s.name} at ${s.url} (${s.models.length} models)`).join(', ') || 'none'}`);
      const { unavailable, refusals } = services.modelServer;
      const found = servers.flatMap((server) =>
        server.models.map((model): ServerItem => {
          // The server answered just now: "not answering" no longer holds; a refusal of the model does.
          if (unavailable.get(model)?.server) unavailable.delete(model);
          const reason = refusals.reason(localModelOrigin(server.url), model);
          return {
            label: `$(sparkle) ${model}`,
            description: `${server.name} · ${server.url}`,
            ...(reason ? { detail: vscode.l10n.t('$(warning) Unavailable: {0}', reason) } : {}),
            pick: { server, name: server.name, model },
          };
        }),
      );
      // The placeholder is one short line; what was looked for goes in the item's own line below,
      // which the quick pick cuts at about 75 characters.
      const searched: ServerItem = {
        ...ENTER_URL,
        detail: vscode.l10n.t('None answered: Ollama 11434, LM Studio 1234, llama.cpp 8080, vLLM 8000.'),
      };
      // The rows shown while it looked stay where they are, so a click aimed at one (Stop Using a
      // Language Model) does not land on a model that just took its place: the models come below.
      const separator: ServerItem = { label: vscode.l10n.t('models found on this machine'), kind: vscode.QuickPickItemKind.Separator };
      picker.items = found.length ? [...fixed, separator, ...found] : [searched, ...fixed.slice(1)];
      picker.placeholder = found.length ? vscode.l10n.t('Pick a model') : vscode.l10n.t('No model server found: enter a URL');
      picker.busy = false;
    });
  }
  const chosen = await new Promise<ServerItem | undefined>((resolve) => {
    picker.onDidAccept(() => resolve(picker.selectedItems[0]));
    picker.onDidHide(() => resolve(undefined));
    picker.show();
  });
  abort.abort();
  picker.dispose();
  if (!chosen) {
    return;
  }
  if (chosen.stop) {
    await services.modelServer.set(undefined);
    await services.secrets.delete(SecretKeys.modelServerKey);
    await services.connection.rebuild('language model removed');
    services.modelServer.announce(undefined);
    void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: the chat and new chats answer with local-extractive again.'));
    return;
  }
  const pick = chosen.pick ?? (chosen.enterUrl ? await askForServer() : undefined);
  if (!pick) {
    return;
  }
  const choice: ModelServerChoice = { url: pick.server.url, model: pick.model, name: pick.name, hasKey: Boolean(pick.key) };
  if (pick.key) {
    await services.secrets.set(SecretKeys.modelServerKey, pick.key);
  } else {
    await services.secrets.delete(SecretKeys.modelServerKey);
  }
  await services.modelServer.set(choice);
  // Chosen again after the server refused it: the user asks to try it; the next answer says again.
  services.modelServer.refusals.clear(localModelOrigin(choice.url), choice.model);
  await services.connection.rebuild('language model chosen');
  log.info(`Local mode forwards chat to ${choice.url} (${choice.model})`);
  // The user's latest choice: the chat follows it, also when a model was picked in the chat.
  services.modelServer.announce(choice);
  void vscode.window.showInformationMessage(
    vscode.l10n.t('DocChat: the chat and new chats now answer with {0} from {1}.', choice.model, choice.name),
  );
}

/** Asks for a URL and an optional key, then for one of the server's models. */
async function askForServer(): Promise<{ server: ProbedServer; name: string; model: string; key?: string } | undefined> {
  const { modelServerBase, probeModelServer } = modelServers();
  const url = await vscode.window.showInputBox({
    title: vscode.l10n.t('DocChat: Language Model Server URL'),
    prompt: vscode.l10n.t('Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1'),
    ignoreFocusOut: true,
    validateInput: (value) => (/^https?:\/\/[^\s/]+/i.test(value.trim()) ? undefined : vscode.l10n.t('Enter an http:// or https:// URL.')),
  });
  if (!url) {
    return undefined;
  }
  const key = await vscode.window.showInputBox({
    title: vscode.l10n.t('DocChat: Language Model Server Key'),
    prompt: vscode.l10n.t("API key of the server (kept in VS Code's secret storage); leave empty when it needs none"),
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) {
    return undefined;
  }
  const server = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Asking {0} for its models…', modelServerBase(url)) },
    () => probeModelServer(url, { key: key || undefined, timeoutMs: 10_000, ollama: true }),
  );
  if (!server || server.models.length === 0) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'DocChat: {0} did not answer GET /models with a list of chat models within 10 seconds. Check the URL and the key.',
        modelServerBase(url),
      ),
    );
    return undefined;
  }
  const model = await vscode.window.showQuickPick(server.models, {
    title: vscode.l10n.t('DocChat: Pick a Model'),
    placeHolder: vscode.l10n.t('Models of {0}', server.url),
  });
  if (!model) {
    return undefined;
  }
  return { server, name: new URL(server.url).host, model, ...(key ? { key } : {}) };
}
