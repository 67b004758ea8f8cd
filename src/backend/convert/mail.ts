/**
 * E-mail: Outlook `.msg` (an OLE compound file, read with @kenjiuno/msgreader) and `.eml`
 * (MIME, read with postal-mime). Sender, recipients, subject, date, the body (HTML bodies through
 * the HTML converter; a `.msg` whose only body is compressed RTF decompressed with
 * @kenjiuno/decompressrtf, then through the RTF converter) and the names of the attachments.
 */
import { note, type ConvertContext } from './context';
import { ConversionError } from './errors';
import { htmlToMarkdown } from './html';
import { rtfToMarkdown } from './rtf';

interface Mail {
  from?: string;
  to: string[];
  cc: string[];
  subject?: string;
  date?: string;
  text?: string;
  html?: string;
  attachments: string[];
}

function person(name?: string, address?: string): string {
  if (name && address && name !== address) return `${name} <${address}>`;
  return name || address || '';
}

function mailToMarkdown(ctx: ConvertContext, mail: Mail): string {
  const lines = [`# ${mail.subject?.trim() || '(no subject)'}`, ''];
  // The same labelled headers for .eml and .msg; empty ones are left out.
  const to = mail.to.map((a) => a.trim()).filter(Boolean);
  const cc = mail.cc.map((a) => a.trim()).filter(Boolean);
  if (mail.from?.trim()) lines.push(`- From: ${mail.from.trim()}`);
  if (to.length) lines.push(`- To: ${to.join(', ')}`);
  if (cc.length) lines.push(`- Cc: ${cc.join(', ')}`);
  if (mail.subject?.trim()) lines.push(`- Subject: ${mail.subject.trim()}`);
  if (mail.date) lines.push(`- Date: ${mail.date}`);
  if (mail.attachments.length) lines.push(`- Attachments: ${mail.attachments.join(', ')}`);
  const body = mail.html
    ? htmlToMarkdown(mail.html, { tables: !ctx.skipOcr, maxDepth: ctx.maxDepth, titleHeading: false, mainContent: false })
    : (mail.text ?? '').replace(/\r\n?/g, '\n').trim();
  if (body) lines.push('', body);
  return lines.join('\n');
}

function isoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().replace('.000Z', 'Z');
}

export async function msgToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  // A CommonJS module whose default export is the class; bundlers wrap it once or twice.
  type Reader = typeof import('@kenjiuno/msgreader').default;
  const loaded = (await import('@kenjiuno/msgreader')) as unknown as { default: Reader | { default: Reader } };
  const MsgReader = (typeof loaded.default === 'function' ? loaded.default : loaded.default.default) as Reader;
  let fields: Record<string, unknown>;
  try {
    const reader = new MsgReader(new Uint8Array(data).buffer);
    fields = reader.getFileData() as unknown as Record<string, unknown>;
  } catch (error) {
    throw new ConversionError(
      'corrupt_file',
      `${ctx.filename} is a corrupt Outlook message and cannot be read (${(error as Error)?.message ?? error}).`,
    );
  }
  if (typeof fields.error === 'string') {
    throw new ConversionError('corrupt_file', `${ctx.filename} is a corrupt Outlook message and cannot be read (${fields.error}).`);
  }
  type Recipient = { name?: string; email?: string; smtpAddress?: string; recipType?: string };
  const recipients = (fields.recipients as Recipient[] | undefined) ?? [];
  const who = (r: Recipient) => person(r.name, r.smtpAddress ?? r.email);
  const text = fields.body as string | undefined;
  const html = fields.bodyHtml as string | undefined;
  // Many messages keep their body only as compressed RTF (PidTagRtfCompressed).
  const rtf = !text?.trim() && !html?.trim() ? await rtfBody(ctx, fields.compressedRtf) : undefined;
  return mailToMarkdown(ctx, {
    from: person(fields.senderName as string, (fields.senderSmtpAddress as string) ?? (fields.senderEmail as string)),
    to: recipients.filter((r) => (r.recipType ?? 'to') === 'to').map(who),
    cc: recipients.filter((r) => r.recipType === 'cc').map(who),
    subject: fields.subject as string | undefined,
    date: isoDate((fields.clientSubmitTime as string) ?? (fields.messageDeliveryTime as string) ?? (fields.creationTime as string)),
    text: rtf ?? text,
    html: html && !text?.trim() ? html : undefined,
    attachments: ((fields.attachments as { fileName?: string; fileNameShort?: string; name?: string }[] | undefined) ?? [])
      .map((a) => a.fileName ?? a.fileNameShort ?? a.name ?? '')
      .filter(Boolean),
  });
}

export async function emlToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const { default: PostalMime } = await import('postal-mime');
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(Buffer.from(data), {
      attachmentEncoding: 'arraybuffer',
      maxNestingDepth: 64,
      maxHeadersSize: 2 * 1024 * 1024,
    } as never);
  } catch (error) {
    throw new ConversionError(
      'corrupt_file',
      `${ctx.filename} is a corrupt e-mail message and cannot be read (${(error as Error)?.message ?? error}).`,
    );
  }
  const address = (a: { name?: string; address?: string } | undefined) => person(a?.name, a?.address);
  return mailToMarkdown(ctx, {
    from: address(email.from),
    to: (email.to ?? []).map(address),
    cc: (email.cc ?? []).map(address),
    subject: email.subject,
    date: isoDate(email.date),
    text: email.text,
    html: email.text?.trim() ? undefined : email.html,
    attachments: email.attachments.map((a) => a.filename ?? '').filter(Boolean),
  });
}

/** The text of a `.msg` body kept as compressed RTF ([MS-OXRTFCP]), or undefined when there is none. */
async function rtfBody(ctx: ConvertContext, compressed: unknown): Promise<string | undefined> {
  if (!(compressed instanceof Uint8Array) || compressed.length < 16) return undefined;
  const { decompressRTF } = await import('@kenjiuno/decompressrtf');
  let rtf: Uint8Array;
  try {
    rtf = Uint8Array.from(decompressRTF(Array.from(compressed)));
  } catch (error) {
    // The sender, recipients, subject and attachments are still worth keeping.
    note(ctx, `${ctx.filename}: the message body (compressed RTF) is damaged and was left out (${(error as Error)?.message ?? error}).`);
    return undefined;
  }
  return rtfToMarkdown(ctx, rtf).trim() || undefined;
}
