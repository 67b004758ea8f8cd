/**
 * A minimal HTTP proxy on 127.0.0.1: tunnels CONNECT requests and forwards absolute-URI requests,
 * recording each target so a test can tell whether traffic went through it.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

export class ProxyServer {
  /** `host:port` of every tunnel, or the URL of every forwarded request. */
  readonly targets: string[] = [];
  /** The Proxy-Authorization header of each request, if any. */
  readonly proxyAuth: (string | undefined)[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<ProxyServer> {
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
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host!, () => {
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
      const target = new URL(req.url ?? '');
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
