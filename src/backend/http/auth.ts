import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors';
import type { Service } from './router';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function same(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function unauthorized(message: string, scheme: string): ApiError {
  return new ApiError({
    type: 'authentication_error',
    message,
    code: 'invalid_api_key',
    status: 401,
    headers: { 'www-authenticate': scheme },
  });
}

/**
 * Documents: `Authorization: Bearer <token>`. Gateway: `Api-Key: <key>`; `Authorization: Bearer
 * <key>` is accepted too so that OpenAI-compatible tools can connect. Returns the caller's id
 * for rate limiting (never the secret itself).
 */
export function authenticate(req: IncomingMessage, service: Service, credentials: { token: string; apiKey: string }): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  if (service === 'documents') {
    if (!bearer) throw unauthorized('Missing bearer token: send the header "Authorization: Bearer <token>".', 'Bearer');
    if (!same(bearer, credentials.token)) throw unauthorized('The bearer token is not valid for this documents service.', 'Bearer');
    return `user:${digest(bearer).toString('hex').slice(0, 16)}`;
  }
  const header = req.headers['api-key'];
  const key = (Array.isArray(header) ? header[0] : header)?.trim() || bearer;
  if (!key) throw unauthorized('Missing API key: send the header "Api-Key: <key>".', 'Api-Key');
  if (!same(key, credentials.apiKey)) throw unauthorized('The API key is not valid for this gateway.', 'Api-Key');
  return `user:${digest(key).toString('hex').slice(0, 16)}`;
}
