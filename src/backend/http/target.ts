/**
 * Reads the request target as sent. The WHATWG URL parser resolves `.`, `..` and `%2e%2e` before
 * routing, which would let an id become a path step; here each raw segment is decoded on its own
 * and dot segments are refused, so an id is always taken whole.
 */
import { ApiError, invalid } from './errors';

/** Longest request target accepted (path and query), in bytes; longer ones get 414. */
export const MAX_URL_BYTES = 8 * 1024;

export interface RequestTarget {
  /** The raw path as sent (still percent-encoded), for messages and logs. */
  path: string;
  /** Decoded path segments, without the leading empty one. */
  segments: string[];
  query: URLSearchParams;
}

function quoted(raw: string): string {
  return JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
}

export function uriTooLong(): ApiError {
  return new ApiError({
    type: 'invalid_request_error',
    message: `The request URL is longer than the limit of ${MAX_URL_BYTES / 1024} KiB.`,
    code: 'uri_too_long',
    status: 414,
  });
}

export function parseTarget(raw: string): RequestTarget {
  if (Buffer.byteLength(raw) > MAX_URL_BYTES) throw uriTooLong();
  let target = raw;
  // Absolute form (`GET http://host/path`), as proxies send it: keep the path and query.
  const absolute = /^https?:\/\/[^/?#]*/i.exec(target);
  if (absolute) {
    // The host is not used for routing, but one a URL parser refuses marks a request no client built.
    if (!URL.canParse(absolute[0])) {
      throw invalid(
        null,
        `The request target ${quoted(raw)} has a host that is not valid: send a path that starts with "/" or a valid absolute URL.`,
        'invalid_request_target',
      );
    }
    target = target.slice(absolute[0].length) || '/';
  }
  if (!target.startsWith('/')) {
    throw invalid(null, `The request target ${quoted(raw)} is not a path: send a path that starts with "/".`, 'invalid_request_target');
  }
  const end = target.search(/[?#]/);
  const path = end < 0 ? target : target.slice(0, end);
  const queryText = end >= 0 && target[end] === '?' ? target.slice(end + 1).split('#')[0]! : '';
  const rawSegments = path.slice(1).split('/');
  // `/v1/files/` is `/v1/files`.
  if (rawSegments.length > 1 && rawSegments[rawSegments.length - 1] === '') rawSegments.pop();
  const segments = rawSegments.map((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw invalid(null, `The path segment ${quoted(segment)} is not valid percent-encoded UTF-8.`, 'invalid_path_encoding');
    }
    if (decoded === '.' || decoded === '..') {
      throw invalid(
        null,
        `The path ${quoted(path)} contains the segment ${quoted(segment)}; "." and ".." are not allowed in paths.`,
        'invalid_path',
      );
    }
    return decoded;
  });
  return { path, segments, query: new URLSearchParams(queryText) };
}
