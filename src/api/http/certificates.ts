/**
 * The certificate authorities DocChat trusts, like VS Code's `http.systemCertificates`: Node's
 * bundled roots, the operating system's store where it can be read without a native module,
 * `NODE_EXTRA_CA_CERTS`, and the files of `docchat.network.caFiles`.
 *
 * What is read from the operating system:
 * - Node 22.15+ / 23.5+ (`tls.getCACertificates('system')`): the system store on every platform.
 * - Otherwise, on Linux and the BSDs: the first bundle found at the usual paths
 *   (`/etc/ssl/certs/ca-certificates.crt` on Debian/Ubuntu, `/etc/pki/tls/certs/ca-bundle.crt` on
 *   Fedora/RHEL, …). On macOS and Windows nothing more is read (their stores need the `security`
 *   tool or a native module); `docchat.network.caFiles` or `NODE_EXTRA_CA_CERTS` cover a company CA.
 */
import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { ValidationError } from './errors';
import type { Env } from './proxyPolicy';

export const LINUX_CA_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
  '/usr/local/share/certs/ca-root-nss.crt',
];

export interface CertificateSources {
  /** Add the operating system's store (VS Code's `http.systemCertificates`). Default true. */
  systemCertificates?: boolean;
  /** Files with extra PEM certificates. */
  caFiles?: readonly string[];
  /** Extra PEM certificates as text. */
  ca?: readonly string[];
  env?: Env;
}

let systemCache: string[] | undefined;

/** The operating system's certificates that can be read without a native module (cached). */
export function systemCertificates(): string[] {
  if (systemCache) return systemCache;
  const fromNode = (tls as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  if (typeof fromNode === 'function') {
    try {
      return (systemCache = fromNode('system'));
    } catch {
      // Older builds know only 'default' / 'bundled'; fall through to the files.
    }
  }
  systemCache = [];
  if (process.platform !== 'win32' && process.platform !== 'darwin') {
    for (const file of LINUX_CA_BUNDLES) {
      try {
        systemCache = notInNodeRoots(readFileSync(file, 'utf8'));
        break;
      } catch {
        // Not this distribution's path.
      }
    }
  }
  return systemCache;
}

/**
 * The certificates of a PEM bundle that Node does not already ship. A distribution's bundle is
 * mostly the same Mozilla roots, and every certificate costs time when a TLS context is built.
 */
export function notInNodeRoots(bundle: string): string[] {
  const normalise = (pem: string) => pem.replace(/\s+/g, '');
  const known = new Set(tls.rootCertificates.map(normalise));
  const blocks = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.filter((block) => !known.has(normalise(block)));
}

const contexts = new Map<string, tls.SecureContext>();

/**
 * One TLS context per set of trusted certificates, for the whole process: building one parses
 * every root (a few hundred ms on a busy machine), so it happens once, at the first connection.
 */
export function secureContextFor(ca: readonly string[]): tls.SecureContext {
  const key = ca.join('\n');
  let context = contexts.get(key);
  if (!context) {
    if (contexts.size >= 8) contexts.delete(contexts.keys().next().value!);
    contexts.set(key, (context = tls.createSecureContext({ ca: [...ca] })));
  }
  return context;
}

function readCaFile(file: string, field: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ValidationError(field, 'a readable PEM file', `Cannot read the ${what} "${file}" (${reason}).`, { cause: error });
  }
}

/**
 * The `ca` list to pass to TLS, or undefined when Node's defaults are enough (no extra source).
 * Passing `ca` replaces Node's roots, so they are always part of the list.
 */
export function trustedCertificates(sources: CertificateSources): string[] | undefined {
  const env = sources.env ?? process.env;
  const extra = [
    ...(sources.ca ?? []),
    ...(sources.caFiles ?? []).map((file) => readCaFile(file, 'transport.caFiles', 'CA certificate file')),
  ];
  const envFile = env.NODE_EXTRA_CA_CERTS?.trim();
  if (envFile) extra.push(readCaFile(envFile, 'NODE_EXTRA_CA_CERTS', 'CA certificate file named by NODE_EXTRA_CA_CERTS'));
  const system = sources.systemCertificates === false ? [] : systemCertificates();
  if (extra.length === 0 && system.length === 0) return undefined;
  return [...tls.rootCertificates, ...system, ...extra];
}
