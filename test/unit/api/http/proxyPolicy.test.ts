import * as assert from 'node:assert/strict';
import { createProxyPolicy, type ProxyInputs } from '../../../../src/api/http/proxyPolicy';
import { networkOptions, transportOptions } from '../../../../src/services/clientFactory';
import { normaliseSettings, type RawSettings } from '../../../../src/services/settingsModel';

const OWN = 'http://own.proxy:1';
const VSCODE = 'http://vscode.proxy:2';
const ENV_HTTPS = 'http://env-https.proxy:3';
const ENV_HTTP = 'http://env-http.proxy:4';

/** From VS Code's settings and the environment, through the settings model, to the decision for one URL. */
function decide(raw: Partial<RawSettings>, env: Record<string, string>, url: string): string | undefined {
  const settings = normaliseSettings({ docchat: {}, ...raw });
  const options: ProxyInputs = { ...transportOptions(settings), env };
  return createProxyPolicy(options).proxyFor(url);
}

describe('proxy policy: settings × environment', () => {
  const table: { name: string; raw?: Partial<RawSettings>; env?: Record<string, string>; url: string; expect: string | undefined }[] = [
    // Which proxy.
    { name: 'nothing configured', url: 'https://docs.example.com', expect: undefined },
    {
      name: "DocChat's own proxy wins",
      raw: { docchat: { 'network.proxy': OWN }, httpProxy: VSCODE },
      env: { HTTPS_PROXY: ENV_HTTPS },
      url: 'https://docs.example.com',
      expect: OWN,
    },
    {
      name: "then VS Code's http.proxy",
      raw: { httpProxy: VSCODE },
      env: { HTTPS_PROXY: ENV_HTTPS },
      url: 'https://docs.example.com',
      expect: VSCODE,
    },
    {
      name: 'then HTTPS_PROXY for https',
      env: { HTTPS_PROXY: ENV_HTTPS, HTTP_PROXY: ENV_HTTP },
      url: 'https://docs.example.com',
      expect: ENV_HTTPS,
    },
    { name: 'https_proxy in lower case', env: { https_proxy: ENV_HTTPS }, url: 'https://docs.example.com', expect: ENV_HTTPS },
    {
      name: 'HTTP_PROXY for http',
      env: { HTTPS_PROXY: ENV_HTTPS, HTTP_PROXY: ENV_HTTP },
      url: 'http://docs.example.com',
      expect: ENV_HTTP,
    },
    { name: 'HTTPS_PROXY alone does not cover http', env: { HTTPS_PROXY: ENV_HTTPS }, url: 'http://docs.example.com', expect: undefined },
    {
      name: 'HTTP_PROXY covers https when HTTPS_PROXY is unset',
      env: { http_proxy: ENV_HTTP },
      url: 'https://docs.example.com',
      expect: ENV_HTTP,
    },
    {
      name: 'a scheme-less HTTPS_PROXY means http://',
      env: { HTTPS_PROXY: 'corp-proxy:3128' },
      url: 'https://docs.example.com',
      expect: 'http://corp-proxy:3128',
    },
    // Loopback never.
    {
      name: 'localhost with a proxy and NO_PROXY unset',
      raw: { httpProxy: VSCODE },
      env: { HTTPS_PROXY: ENV_HTTPS },
      url: 'http://localhost:4123',
      expect: undefined,
    },
    {
      name: '127.0.0.1 with an empty http.noProxy',
      raw: { httpProxy: VSCODE, httpNoProxy: [] },
      url: 'http://127.0.0.1:4123',
      expect: undefined,
    },
    { name: 'anywhere in 127.0.0.0/8', env: { HTTP_PROXY: ENV_HTTP }, url: 'http://127.8.9.10:80', expect: undefined },
    { name: '::1', env: { HTTP_PROXY: ENV_HTTP }, url: 'http://[::1]:4123', expect: undefined },
    { name: 'a *.localhost name', env: { HTTP_PROXY: ENV_HTTP }, url: 'http://docchat.localhost:4123', expect: undefined },
    // Exemptions: http.noProxy ∪ NO_PROXY.
    {
      name: 'NO_PROXY applies with http.noProxy unset',
      env: { HTTPS_PROXY: ENV_HTTPS, NO_PROXY: 'docs.example.com' },
      url: 'https://docs.example.com',
      expect: undefined,
    },
    {
      name: 'NO_PROXY still applies when http.noProxy lists other hosts',
      raw: { httpNoProxy: ['other.example'] },
      env: { HTTPS_PROXY: ENV_HTTPS, no_proxy: 'docs.example.com' },
      url: 'https://docs.example.com',
      expect: undefined,
    },
    {
      name: 'http.noProxy applies to an explicit proxy',
      raw: { httpProxy: VSCODE, httpNoProxy: ['docs.example.com'] },
      url: 'https://docs.example.com',
      expect: undefined,
    },
    {
      name: 'NO_PROXY applies to an explicit proxy',
      raw: { docchat: { 'network.proxy': OWN } },
      env: { NO_PROXY: 'docs.example.com' },
      url: 'https://docs.example.com',
      expect: undefined,
    },
    {
      name: 'a bare domain covers its subdomains',
      raw: { httpProxy: VSCODE, httpNoProxy: ['example.com'] },
      url: 'https://docs.example.com',
      expect: undefined,
    },
    {
      name: 'a leading dot covers subdomains',
      raw: { httpProxy: VSCODE, httpNoProxy: ['.example.com'] },
      url: 'https://a.b.example.com',
      expect: undefined,
    },
    {
      name: 'a leading dot covers the domain itself',
      raw: { httpProxy: VSCODE, httpNoProxy: ['.example.com'] },
      url: 'https://example.com',
      expect: undefined,
    },
    {
      name: '*.domain',
      raw: { httpProxy: VSCODE },
      env: { NO_PROXY: '*.example.com' },
      url: 'https://docs.example.com',
      expect: undefined,
    },
    {
      name: 'a suffix is not a domain',
      raw: { httpProxy: VSCODE, httpNoProxy: ['example.com'] },
      url: 'https://badexample.com',
      expect: VSCODE,
    },
    {
      name: '* exempts everything',
      raw: { httpProxy: VSCODE },
      env: { NO_PROXY: '*' },
      url: 'https://docs.example.com',
      expect: undefined,
    },
    {
      name: 'host:port matches that port',
      raw: { httpProxy: VSCODE, httpNoProxy: ['docs.example.com:8443'] },
      url: 'https://docs.example.com:8443',
      expect: undefined,
    },
    {
      name: 'host:port does not match another port',
      raw: { httpProxy: VSCODE, httpNoProxy: ['docs.example.com:8443'] },
      url: 'https://docs.example.com',
      expect: VSCODE,
    },
    {
      name: 'host:443 matches the default https port',
      raw: { httpProxy: VSCODE },
      env: { NO_PROXY: 'docs.example.com:443' },
      url: 'https://docs.example.com/v1',
      expect: undefined,
    },
    { name: 'an IP address', raw: { httpProxy: VSCODE }, env: { NO_PROXY: '10.1.2.3' }, url: 'https://10.1.2.3', expect: undefined },
    {
      name: 'an IPv4 CIDR range',
      raw: { httpProxy: VSCODE },
      env: { NO_PROXY: '10.0.0.0/8' },
      url: 'https://10.20.30.40',
      expect: undefined,
    },
    {
      name: 'outside the CIDR range',
      raw: { httpProxy: VSCODE },
      env: { NO_PROXY: '10.0.0.0/8' },
      url: 'https://11.0.0.1',
      expect: VSCODE,
    },
    {
      name: 'an IPv6 CIDR range',
      raw: { httpProxy: VSCODE },
      env: { NO_PROXY: 'fd00::/8' },
      url: 'https://[fd12::1]:8443',
      expect: undefined,
    },
    {
      name: 'a bracketed IPv6 with a port',
      raw: { httpProxy: VSCODE, httpNoProxy: ['[fd12::1]:8443'] },
      url: 'https://[fd12::1]:8443',
      expect: undefined,
    },
    {
      name: 'case and spaces do not matter',
      raw: { httpProxy: VSCODE, httpNoProxy: ' Docs.Example.COM , x' },
      url: 'https://docs.example.com',
      expect: undefined,
    },
  ];

  for (const row of table) {
    it(`${row.name}: ${row.url} → ${row.expect ?? 'direct'}`, () => {
      assert.equal(decide(row.raw ?? {}, row.env ?? {}, row.url), row.expect);
    });
  }

  it('reads the proxy credentials and system-certificate switch from VS Code settings', () => {
    const settings = normaliseSettings({ docchat: {}, httpProxyAuthorization: ' Basic Ym9iOnB3 ', httpSystemCertificates: false });
    const options = transportOptions(settings);
    assert.equal(options.proxyAuthorization, 'Basic Ym9iOnB3');
    assert.equal(options.systemCertificates, false);
    const defaults = transportOptions(normaliseSettings({ docchat: {} }));
    assert.equal(defaults.proxyAuthorization, undefined);
    assert.equal(defaults.systemCertificates, true);
  });

  it('hands the local backend exactly the network part of what the clients use, from one mapping', () => {
    const settings = normaliseSettings({
      docchat: {
        'network.proxy': OWN,
        'network.caFiles': ['/etc/company-ca.pem'],
        'network.strictSSL': false,
        'network.allowInsecureHttp': true,
      },
      httpNoProxy: ['intranet.example.com'],
      httpProxyAuthorization: 'Basic Ym9iOnB3',
      httpSystemCertificates: false,
    });
    const network = networkOptions(settings);
    assert.deepEqual(network, {
      proxy: OWN,
      noProxy: ['intranet.example.com'],
      proxyAuthorization: 'Basic Ym9iOnB3',
      strictSSL: false,
      systemCertificates: false,
      caFiles: ['/etc/company-ca.pem'],
    });
    const { allowInsecureHttp, userAgent, ...clientNetwork } = transportOptions(settings, 'DocChat/1');
    assert.deepEqual(clientNetwork, network, 'the clients and the backend get the same network settings');
    assert.equal(allowInsecureHttp, true);
    assert.equal(userAgent, 'DocChat/1');
  });
});
