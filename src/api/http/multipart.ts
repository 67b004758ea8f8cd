import { randomBytes } from 'node:crypto';

export type MultipartPart = { name: string; value: string } | { name: string; filename: string; data: Uint8Array; contentType?: string };

function quote(value: string): string {
  // RFC 7578: quotes and line breaks are percent-encoded in the header parameters.
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A buffered multipart/form-data body (buffered so a retry can send the same bytes again). */
export function encodeMultipart(parts: readonly MultipartPart[]): { data: Uint8Array; contentType: string } {
  const boundary = `----DocChatBoundary${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quote(part.name)}"`;
    if ('filename' in part) {
      const ascii = part.filename.replace(/[^\x20-\x7e]/g, '_');
      head += `; filename="${quote(ascii)}"`;
      if (ascii !== part.filename) head += `; filename*=UTF-8''${encodeURIComponent(part.filename)}`;
      head += `\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`;
      chunks.push(Buffer.from(head, 'utf8'), Buffer.from(part.data), Buffer.from('\r\n'));
    } else {
      chunks.push(Buffer.from(`${head}\r\n\r\n${part.value}\r\n`, 'utf8'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { data: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
