import * as assert from 'node:assert/strict';
import { upstreamSignature } from '../../../src/common/discoveryFile';
import { localOcrLanguages, planConnection } from '../../../src/services/clientFactory';
import { configuredChatModel, connectionModeOf, hostLabel, normaliseSettings } from '../../../src/services/settingsModel';

describe('settings model', () => {
  it('defaults: Local mode, project code NA, page size 50, 10 results, OpenAI field names', () => {
    const s = normaliseSettings({ docchat: {} });
    assert.equal(connectionModeOf(s), 'local');
    assert.equal(s.projectCode, 'NA');
    assert.equal(s.pageSize, 50);
    assert.equal(s.searchMaxResults, 10);
    assert.equal(s.skipOcrField, 'skip_ocr');
    assert.equal(s.fileIdsField, 'file_ids');
    assert.equal(s.attachSkipOcr, 'ask');
    assert.equal(s.network.strictSSL, true);
    assert.equal(s.network.proxy, undefined);
  });

  it('trims URLs and drops trailing slashes; a documents URL means Remote mode', () => {
    const s = normaliseSettings({
      docchat: { 'documents.url': ' https://docs.example.com/ ', 'gateway.url': 'https://llm.example.com//' },
    });
    assert.equal(s.documentsUrl, 'https://docs.example.com');
    assert.equal(s.gatewayUrl, 'https://llm.example.com');
    assert.equal(connectionModeOf(s), 'remote');
  });

  it('clamps page size and result count to the documented ranges', () => {
    const s = normaliseSettings({ docchat: { 'stores.pageSize': 0, 'search.maxResults': 99 } });
    assert.equal(s.pageSize, 1);
    assert.equal(s.searchMaxResults, 50);
    const t = normaliseSettings({ docchat: { 'stores.pageSize': 20000, 'search.maxResults': 'x' } });
    assert.equal(t.pageSize, 10000);
    assert.equal(t.searchMaxResults, 10);
  });

  it("takes DocChat's proxy over VS Code's http.proxy, and VS Code's noProxy list", () => {
    const both = normaliseSettings({
      docchat: { 'network.proxy': 'http://own:1' },
      httpProxy: 'http://vscode:2',
      httpNoProxy: ['localhost', '.corp'],
    });
    assert.equal(both.network.proxy, 'http://own:1');
    assert.deepEqual(both.network.noProxy, ['localhost', '.corp']);
    const vscodeOnly = normaliseSettings({ docchat: {}, httpProxy: 'http://vscode:2', httpNoProxy: 'a.example, b.example' });
    assert.equal(vscodeOnly.network.proxy, 'http://vscode:2');
    assert.deepEqual(vscodeOnly.network.noProxy, ['a.example', 'b.example']);
  });

  it('turns certificate checks off when either strictSSL switch is off', () => {
    assert.equal(normaliseSettings({ docchat: { 'network.strictSSL': false } }).network.strictSSL, false);
    assert.equal(normaliseSettings({ docchat: {}, httpProxyStrictSSL: false }).network.strictSSL, false);
  });

  it('OCR languages: every shipped one by default; a list restarts the local backend with it; an unknown one is named', () => {
    const defaults = normaliseSettings({ docchat: {} });
    assert.deepEqual(defaults.ocrLanguages, ['eng', 'ara', 'fas', 'heb']);
    assert.deepEqual(localOcrLanguages(defaults), { languages: undefined, error: undefined });
    const hebrew = normaliseSettings({ docchat: { 'attach.ocrLanguages': ['eng', 'heb'] } });
    assert.deepEqual(localOcrLanguages(hebrew), { languages: ['eng', 'heb'], error: undefined });
    // The backend's signature changes with the languages (a new backend), and not for the default.
    assert.equal(upstreamSignature(undefined, undefined, undefined), null);
    assert.notEqual(upstreamSignature(undefined, undefined, ['eng', 'heb']), null);
    assert.notEqual(upstreamSignature(undefined, undefined, ['eng', 'heb']), upstreamSignature(undefined, undefined, ['eng']));
    const upstream = { url: 'http://127.0.0.1:1/v1' };
    assert.notEqual(upstreamSignature(upstream, undefined, ['eng']), upstreamSignature(upstream));
    const wrong = localOcrLanguages(normaliseSettings({ docchat: { 'attach.ocrLanguages': ['eng', 'urd'] } }));
    assert.deepEqual(wrong.languages, ['eng']);
    assert.equal(
      wrong.error,
      'OCR has no language "urd": the OCR languages DocChat ships are eng (English), ara (Arabic), fas (Persian), heb (Hebrew).',
    );
  });

  it('labels hosts for the status bar', () => {
    assert.equal(hostLabel('https://docs.example.com/api'), 'docs.example.com');
    assert.equal(hostLabel('http://10.0.0.2:8080'), '10.0.0.2:8080');
    assert.equal(hostLabel('not a url'), 'not a url');
  });
});

describe('connection plan', () => {
  const local = normaliseSettings({ docchat: {} });
  const remote = normaliseSettings({ docchat: { 'documents.url': 'https://docs.example.com' } });
  const remoteWithGateway = normaliseSettings({
    docchat: { 'documents.url': 'https://docs.example.com', 'gateway.url': 'https://llm.example.com' },
  });

  it('Local mode serves the gateway from the embedded backend unless a gateway URL is set', () => {
    assert.deepEqual(planConnection(local, {}), { kind: 'local', gateway: 'local' });
    const localWithGateway = normaliseSettings({ docchat: { 'gateway.url': 'https://llm.example.com' } });
    assert.deepEqual(planConnection(localWithGateway, {}), { kind: 'local', gateway: undefined });
    assert.deepEqual(planConnection(localWithGateway, { gatewayApiKey: 'k' }), {
      kind: 'local',
      gateway: { url: 'https://llm.example.com', token: 'k' },
    });
  });

  it('is signed out with a documents URL and no token; never sends the token elsewhere', () => {
    assert.deepEqual(planConnection(remote, {}), { kind: 'signedOut', documentsUrl: 'https://docs.example.com', gateway: undefined });
    const plan = planConnection(remoteWithGateway, { documentsToken: 't', gatewayApiKey: 'k' });
    assert.deepEqual(plan, {
      kind: 'remote',
      documents: { url: 'https://docs.example.com', token: 't' },
      gateway: { url: 'https://llm.example.com', token: 'k' },
    });
  });

  it('has no gateway in Remote mode without a gateway URL (the documents token is not reused)', () => {
    const plan = planConnection(remote, { documentsToken: 't', gatewayApiKey: 'k' });
    assert.equal(plan.kind, 'remote');
    assert.equal(plan.gateway, undefined);
  });

  it('starts a chat with the model setting, else the picked local model only when the chat goes to the embedded gateway', () => {
    const settings = (docchat: Record<string, unknown>) => normaliseSettings({ docchat });
    assert.equal(configuredChatModel(settings({}), 'llama3'), 'llama3');
    assert.equal(configuredChatModel(settings({}), undefined), '');
    assert.equal(configuredChatModel(settings({ 'chat.defaultModel': 'alpha-5-mini' }), 'llama3'), 'alpha-5-mini');
    // Only the gateway URL set: documents stay local, but the chat goes to that gateway.
    assert.equal(configuredChatModel(settings({ 'gateway.url': 'https://gw.example' }), 'llama3'), '');
    assert.equal(configuredChatModel(settings({ 'documents.url': 'https://docs.example' }), 'llama3'), '');
  });
});
