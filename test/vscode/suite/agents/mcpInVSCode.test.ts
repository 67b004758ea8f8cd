import * as assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { readDiscovery } from '../../../../src/common/discoveryFile';
import { MCP_SERVER_LABEL } from '../../../../src/features/agents/mcpServer';
import { EXTENSION_ID, eventually } from '../documents/fixtures';

// DocChat's MCP server as VS Code's agents reach it: VS Code starts the server from DocChat's
// definition provider with its own MCP client, lists the server's tools in vscode.lm.tools and
// runs them through vscode.lm.invokeTool. No MCP client of DocChat's own takes part.
//
// From VS Code's source (src/vs/workbench/api/common/extHostMcp.ts, contrib/mcp/common/*):
// - an extension's server definition gets the id `<extension id, lower case>/<label>`;
// - `workbench.mcp.startServer <id>` starts it (resolving the definition through the provider);
// - its tools join the language model tools tagged `mcp`, named `mcp_<server prefix>_<tool name>`;
//   VS Code 1.104 first checks each input schema with `json.validate` and leaves out a tool that fails;
// - a tool result with structuredContent reaches the model as that JSON instead of the text
//   content, and each resource_link as a link to an `mcp-resource:` URI that VS Code's file system
//   reads from the server (resources/read).

// VS Code names an extension's server `<extension id>/<label>`.
const SERVER_ID = `${EXTENSION_ID}/${MCP_SERVER_LABEL}`;
const MARKER = 'Quarterly cold-storage audits rotate the vault keys every ninety days.';
const encode = (text: string) => new TextEncoder().encode(text);
const decode = (data: Uint8Array) => new TextDecoder().decode(data);

interface DocChatApi {
  connectionState(): { kind: string };
  whenReady(): Promise<void>;
}

/** The profile folder of this VS Code (the one holding `User/`), found from the runner's global storage. */
function userDataDir(): string {
  const start = process.env.DOCCHAT_EXTHOST_GLOBAL_STORAGE;
  assert.ok(start, 'the runner names its global storage folder');
  for (let dir = start; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (path.basename(dir) === 'User') return path.dirname(dir);
  }
  throw new Error(`No profile folder above ${start}`);
}

function isDocChatMcpTool(tool: vscode.LanguageModelToolInformation, name: string): boolean {
  return tool.tags.includes('mcp') && tool.name.startsWith('mcp_') && tool.name.endsWith(`_${name}`);
}

/** The text parts of a tool result, and each data part's bytes decoded as text. */
function resultTexts(result: vscode.LanguageModelToolResult): string[] {
  return result.content.flatMap((part) => {
    if (part instanceof vscode.LanguageModelTextPart) return [part.value];
    const data = (part as { data?: unknown }).data;
    return data instanceof Uint8Array ? [decode(data)] : [];
  });
}

/**
 * The `mcp-resource:` URIs VS Code gives the model for the result's resource links: a data part
 * (`application/vnd.code.resource-link`, VS Code 1.105 and later) or a sentence naming the URI (before).
 */
function resourceLinkUris(result: vscode.LanguageModelToolResult): vscode.Uri[] {
  const uris: vscode.Uri[] = [];
  for (const part of result.content) {
    if (part instanceof vscode.LanguageModelTextPart) {
      for (const match of part.value.matchAll(/\bmcp-resource:\/\/\S+/g)) uris.push(vscode.Uri.parse(match[0]));
      continue;
    }
    const { mimeType, data } = part as { mimeType?: string; data?: unknown };
    if (mimeType === 'application/vnd.code.resource-link' && data instanceof Uint8Array) {
      const link = JSON.parse(decode(data)) as { uri: { scheme: string; authority?: string; path?: string; query?: string } };
      uris.push(vscode.Uri.from({ scheme: link.uri.scheme, authority: link.uri.authority, path: link.uri.path, query: link.uri.query }));
    }
  }
  return uris;
}

describe("Agents: DocChat's MCP tools through VS Code's own MCP client", function () {
  this.timeout(150_000);
  let documents: DocumentsClient | undefined;
  let storeId: string | undefined;
  let fileId: string;

  before(async function () {
    const api = (await vscode.extensions.getExtension<DocChatApi>(EXTENSION_ID)!.activate()) as DocChatApi;
    await api.whenReady();
    assert.equal(api.connectionState().kind, 'local', 'the suite runs DocChat in Local mode');
    // The local backend DocChat started, found as DocChat's MCP server finds it: its discovery file.
    const info = await readDiscovery(path.join(userDataDir(), 'User', 'globalStorage', EXTENSION_ID, 'backend.json'));
    assert.ok(info, "DocChat's local backend wrote its discovery file");
    documents = new DocumentsClient({ baseUrl: info.url, token: info.token, rateLimits: false });
    storeId = (await documents.createVectorStore({ name: 'mcp-in-vscode' })).id;
    const file = await documents.uploadFile({
      filename: 'vault-operations.md',
      data: encode(`# Vault operations\n\n${MARKER}\n\nThe on-call engineer signs each audit report.\n`),
    });
    fileId = file.id;
    await documents.attachFile(storeId, { file_id: fileId });
    await documents.waitUntilProcessed(storeId, fileId, { initialDelayMs: 20, maxDelayMs: 200 });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.mcp.stopServer', SERVER_ID).then(undefined, () => undefined);
    if (documents && storeId) await documents.deleteVectorStore(storeId).catch(() => undefined);
    await documents?.close();
  });

  it("lists the server's tools in vscode.lm.tools once VS Code starts it, and a search names the file id and links the file", async () => {
    const search = await eventually(
      async () => {
        const listed = vscode.lm.tools.find((t) => isDocChatMcpTool(t, 'docchat_search'));
        if (listed) return listed;
        // The server is listed a moment after DocChat registered its provider; until then the command finds no server.
        // errorOnUserInteraction: a server that fails to start rejects the command instead of waiting on a notification.
        await vscode.commands.executeCommand('workbench.mcp.startServer', SERVER_ID, { errorOnUserInteraction: true });
        return vscode.lm.tools.find((t) => isDocChatMcpTool(t, 'docchat_search'));
      },
      `VS Code listing the docchat_search tool of the MCP server ${SERVER_ID}`,
      2_400,
    ).catch((error: Error) => {
      const listed = vscode.lm.tools.filter((t) => t.tags.includes('mcp')).map((t) => t.name);
      throw new Error(`${error.message}; VS Code lists these MCP tools: ${listed.join(', ') || 'none'}`);
    });
    const names = vscode.lm.tools.filter((t) => t.tags.includes('mcp')).map((t) => t.name);
    for (const tool of ['docchat_list_stores', 'docchat_list_files', 'docchat_read_file']) {
      assert.ok(
        vscode.lm.tools.some((t) => isDocChatMcpTool(t, tool)),
        `${tool} among VS Code's MCP tools: ${names.join(', ')}`,
      );
    }
    assert.ok(JSON.stringify(search.inputSchema).includes('"query"'), "the tool carries the server's input schema");

    const result = await vscode.lm.invokeTool(search.name, {
      input: { store: storeId, query: 'How often are the vault keys rotated?', max_results: 3 },
      toolInvocationToken: undefined,
    });

    // What the model gets: the hit's file id, with the store to read it from.
    const texts = resultTexts(result);
    const structured = texts
      .map((text) => {
        try {
          return JSON.parse(text) as { store_id?: string; results?: Array<{ file_id: string; file_name: string; store_id: string }> };
        } catch {
          return undefined;
        }
      })
      .find((value) => Array.isArray(value?.results));
    const readLine = texts.some((text) => text.includes(`read: ${JSON.stringify({ store: storeId, file_id: fileId })}`));
    const hit = structured?.results?.find((r) => r.file_id === fileId);
    assert.ok(hit || readLine, `the result names the file id ${fileId}:\n${texts.join('\n---\n')}`);
    if (hit) {
      assert.equal(hit.file_name, 'vault-operations.md');
      assert.equal(hit.store_id, storeId);
    }

    // The file's resource link, which VS Code reads from the server by URI (resources/read).
    const links = resourceLinkUris(result);
    const link = links.find((uri) => uri.path.endsWith(`/stores/${storeId}/files/${fileId}`));
    assert.ok(link, `a resource link to the file among: ${links.map(String).join(', ') || 'none'}\n${texts.join('\n---\n')}`);
    assert.equal(link.scheme, 'mcp-resource');
    const body = decode(await vscode.workspace.fs.readFile(link));
    assert.ok(body.includes(MARKER), `the linked resource holds the file's text:\n${body.slice(0, 500)}`);
  });
});
