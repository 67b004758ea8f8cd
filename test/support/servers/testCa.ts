/**
 * A throw-away certificate authority for TLS tests, made with the openssl CLI: a company-style
 * root, leaves it signs (valid, expired, for another host), and a self-signed leaf.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Leaf {
  key: string;
  cert: string;
  certFile: string;
}

export const TEST_HOST = 'docs.corp.test';
const DEFAULT_NAMES = `DNS:${TEST_HOST},DNS:localhost,IP:127.0.0.1`;

export class TestCa {
  readonly certFile: string;

  private constructor(readonly dir: string) {
    this.certFile = join(dir, 'ca.pem');
  }

  get cert(): string {
    return readFileSync(this.certFile, 'utf8');
  }

  static create(): TestCa {
    const ca = new TestCa(mkdtempSync(join(tmpdir(), 'docchat-ca-')));
    ca.openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=DocChat Test Corp Root CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      join(ca.dir, 'ca.key'),
      '-out',
      ca.certFile,
    ]);
    writeFileSync(join(ca.dir, 'index.txt'), '');
    writeFileSync(join(ca.dir, 'serial'), '1000\n');
    writeFileSync(
      join(ca.dir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = test',
        '[test]',
        `dir = ${ca.dir}`,
        'database = $dir/index.txt',
        'serial = $dir/serial',
        'new_certs_dir = $dir',
        'certificate = $dir/ca.pem',
        'private_key = $dir/ca.key',
        'default_md = sha256',
        'policy = any',
        'copy_extensions = copy',
        'unique_subject = no',
        '[any]',
        'commonName = supplied',
        '',
      ].join('\n'),
    );
    return ca;
  }

  private openssl(args: string[]): void {
    execFileSync('openssl', args, { stdio: 'ignore', cwd: this.dir });
  }

  /** A leaf signed by this CA; `expired` dates it in 2020, `names` sets its subjectAltName. */
  leaf(name: string, options: { names?: string; expired?: boolean } = {}): Leaf {
    const key = join(this.dir, `${name}.key`);
    const csr = join(this.dir, `${name}.csr`);
    const cert = join(this.dir, `${name}.pem`);
    this.openssl([
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=${options.names ?? DEFAULT_NAMES}`,
      '-keyout',
      key,
      '-out',
      csr,
    ]);
    const dates = options.expired ? ['-startdate', '20200101000000Z', '-enddate', '20200102000000Z'] : ['-days', '2'];
    this.openssl(['ca', '-batch', '-notext', '-config', join(this.dir, 'ca.cnf'), ...dates, '-in', csr, '-out', cert]);
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8'), certFile: cert };
  }

  /** A self-signed leaf (no CA at all). */
  selfSigned(name: string): Leaf {
    const key = join(this.dir, `${name}.key`);
    const cert = join(this.dir, `${name}.pem`);
    this.openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=${DEFAULT_NAMES}`,
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8'), certFile: cert };
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
