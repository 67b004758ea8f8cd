/**
 * A minimal HTTP proxy on 127.0.0.1: tunnels CONNECT requests and forwards absolute-URI requests,
 * recording each target so a test can tell whether traffic went through it.
 *
 * Like a company proxy it resolves names itself: every host under the reserved `.test` domain
 * (e.g. `docs.corp.test`) is this machine, so a client that may not proxy loopback still has a
 * name to send through it. With `requireAuth`, requests without that Proxy-Authorization get a 407.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

export interface ProxyServerOptions {
  /** The exact Proxy-Authorization value the proxy accepts; anything else gets a 407. */
  requireAuth?: string;
}

function resolve(host: string): string {
  return host.toLowerCase().endsWith('.test') ? '127.0.0.1' : host;
}

export class ProxyServer {
  /** One line per request, as a proxy's access log: `CONNECT docs.corp.test:443 200`. */
  readonly log: string[] = [];
  /** `host:port` of every tunnel, or the URL of every forwarded request. */
  readonly targets: string[] = [];
  /** The Proxy-Authorization header of each request, if any. */
  readonly proxyAuth: (string | undefined)[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(options: ProxyServerOptions = {}): Promise<ProxyServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const proxy = new ProxyServer(server, (server.address() as AddressInfo).port);
    server.on('connection', (socket) => {
      proxy.sockets.add(socket);
      socket.on('close', () => proxy.sockets.delete(socket));
    });
    server.on('connect', (req, client: Socket, head) => {
      proxy.targets.push(req.url ?? '');
      proxy.proxyAuth.push(req.headers['proxy-authorization']);
      if (options.requireAuth !== undefined && req.headers['proxy-authorization'] !== options.requireAuth) {
        proxy.log.push(`CONNECT ${req.url} 407`);
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), resolve(host!), () => {
        proxy.log.push(`CONNECT ${req.url} 200`);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      proxy.sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    server.on('request', (req, res) => {
      proxy.targets.push(req.url ?? '');
      proxy.proxyAuth.push(req.headers['proxy-authorization']);
      if (options.requireAuth !== undefined && req.headers['proxy-authorization'] !== options.requireAuth) {
        proxy.log.push(`${req.method} ${req.url} 407`);
        res
          .writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"', 'content-type': 'text/html' })
          .end('<html><body>Sign in</body></html>');
        return;
      }
      proxy.log.push(`${req.method} ${req.url}`);
      const target = new URL(req.url ?? '');
      target.hostname = resolve(target.hostname);
      const forwarded = httpRequest(target, { method: req.method, headers: req.headers }, (upstream) => {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        upstream.pipe(res);
      });
      forwarded.on('error', () => res.destroy());
      req.pipe(forwarded);
    });
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
