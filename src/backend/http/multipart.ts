/**
 * A small multipart/form-data parser for buffered bodies (uploads are already bounded by the
 * upload limit, so buffering is fine). Supports RFC 7578 `filename*=UTF-8''…` names.
 */
import { invalid } from './errors';

export interface FormField {
  name: string;
  value?: string;
  filename?: string;
  contentType?: string;
  data?: Buffer;
}

export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return undefined;
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  return match ? (match[1] ?? match[2])!.trim() : undefined;
}

function headerParam(header: string, name: string): string | undefined {
  const star = new RegExp(`;\\s*${name}\\*=([^;]+)`, 'i').exec(header);
  if (star) {
    const value = star[1]!.trim();
    const quoteIndex = value.indexOf("''");
    try {
      return decodeURIComponent(quoteIndex >= 0 ? value.slice(quoteIndex + 2) : value);
    } catch {
      // fall through to the plain parameter
    }
  }
  const plain = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;]+)`, 'i').exec(header);
  if (!plain) return undefined;
  const raw = plain[1] ?? plain[2]!.trim();
  return raw
    .replace(/%22/g, '"')
    .replace(/%0D/gi, '\r')
    .replace(/%0A/gi, '\n')
    .replace(/\\(["\\])/g, '$1');
}

export function parseMultipart(body: Buffer, boundary: string): FormField[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const fields: FormField[] = [];
  let position = body.indexOf(delimiter);
  if (position < 0) throw invalid('file', 'The multipart body has no parts.', 'invalid_multipart');
  for (;;) {
    position += delimiter.length;
    if (body.subarray(position, position + 2).toString() === '--') break;
    // Skip the line break after the delimiter.
    if (body[position] === 0x0d) position++;
    if (body[position] === 0x0a) position++;
    const headerEnd = body.indexOf('\r\n\r\n', position);
    if (headerEnd < 0) throw invalid('file', 'A multipart part has no header end.', 'invalid_multipart');
    const headers = body.subarray(position, headerEnd).toString('utf8').split('\r\n');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw invalid('file', 'The multipart body ends before its closing boundary.', 'invalid_multipart');
    const data = body.subarray(headerEnd + 4, next);
    let disposition = '';
    let contentType: string | undefined;
    for (const line of headers) {
      const colon = line.indexOf(':');
      const key = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (key === 'content-disposition') disposition = value;
      else if (key === 'content-type') contentType = value;
    }
    const name = headerParam(disposition, 'name');
    if (name !== undefined) {
      const filename = headerParam(disposition, 'filename');
      fields.push(filename !== undefined ? { name, filename, contentType, data } : { name, value: data.toString('utf8') });
    }
    position = next + 2;
  }
  return fields;
}
