/** Server-sent events in the OpenAI chat-completions format. */
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../http/errors';

export function startEventStream(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
}

export function sendEvent(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

export function endEventStream(res: ServerResponse): void {
  res.end('data: [DONE]\n\n');
}

/** An error after the stream started: `event: error` with the usual error body, then the end. */
export function sendErrorEvent(res: ServerResponse, error: ApiError): void {
  res.end(`event: error\ndata: ${JSON.stringify(error.toBody())}\n\n`);
}
