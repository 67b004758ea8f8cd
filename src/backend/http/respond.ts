import type { ServerResponse } from 'node:http';
import { ApiError } from './errors';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendBytes(res: ServerResponse, data: Uint8Array, contentType: string, headers: Record<string, string> = {}): void {
  res.writeHead(200, { ...headers, 'content-type': contentType, 'content-length': data.byteLength });
  res.end(data);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, error.toBody(), error.headers);
}
