/**
 * Reviewers' comments in workbooks and presentations, as text beside what they comment on:
 * a sheet's notes and threaded comments with their cell (`B2 (Ana): check this`), a slide's
 * comments (classic and modern, with their replies) under the slide.
 */
import { relationships, type Package } from './zipPackage';
import { attr, childrenNamed, findAll, findFirst, squash, textOf, type XmlNode } from './xml';

const NONE: XmlNode = { name: '', attrs: {}, children: [] };

function line(ref: string, author: string, text: string): string {
  const where = [ref, author ? `(${author})` : ''].filter(Boolean).join(' ');
  return `- ${where ? `${where}: ` : ''}${text}`;
}

/** Paragraph text of a comment body (`a:p`/`w:p`-like children), lines kept apart. */
function bodyText(node: XmlNode): string {
  const paragraphs = findAll(node, 'p');
  const text = paragraphs.length
    ? paragraphs
        .map((p) => squash(textOf(p)))
        .filter(Boolean)
        .join(' / ')
    : squash(textOf(node));
  return text;
}

/** A sheet's comments: threaded comments (with replies) first, then notes on the cells they do not cover. */
export async function sheetComments(pkg: Package, sheetPart: string): Promise<string[]> {
  const out: string[] = [];
  const covered = new Set<string>();
  const rels = [...(await relationships(pkg, sheetPart)).values()].filter((r) => !r.external);
  const threaded = rels.filter((r) => /\/threadedComment$/i.test(r.type));
  if (threaded.length) {
    const people = new Map<string, string>();
    for (const name of pkg.names().filter((n) => /^xl\/persons\/[^/]+\.xml$/i.test(n))) {
      const xml = await pkg.xml(name);
      for (const person of xml ? findAll(xml, 'person') : []) people.set(attr(person, 'id') ?? '', attr(person, 'displayName') ?? '');
    }
    for (const rel of threaded) {
      const xml = await pkg.xml(rel.target);
      for (const comment of xml ? findAll(xml, 'threadedComment') : []) {
        const ref = attr(comment, 'ref') ?? '';
        const text = squash(textOf(findFirst(comment, 'text') ?? NONE));
        if (!text) continue;
        covered.add(ref);
        const author = people.get(attr(comment, 'personId') ?? '') ?? '';
        const label = attr(comment, 'parentId') ? ['reply', author].filter(Boolean).join(', ') : author;
        out.push(line(ref, label, text));
      }
    }
  }
  for (const rel of rels.filter((r) => /\/comments$/i.test(r.type))) {
    const xml = await pkg.xml(rel.target);
    if (!xml) continue;
    const authors = findAll(findFirst(xml, 'authors') ?? NONE, 'author').map((a) => squash(textOf(a)));
    for (const comment of findAll(findFirst(xml, 'commentList') ?? xml, 'comment')) {
      const ref = attr(comment, 'ref') ?? '';
      if (covered.has(ref)) continue;
      const text = findAll(findFirst(comment, 'text') ?? NONE, 't', 'rPh')
        .filter((t) => !t.name.endsWith('rPh'))
        .map(textOf)
        .join('')
        .trim();
      if (!text) continue;
      const author = authors[Number(attr(comment, 'authorId') ?? -1)] ?? '';
      // Notes written by Excel start with their author's name: "Ana:\nCheck this".
      const body = author && text.startsWith(`${author}:`) ? text.slice(author.length + 1) : text;
      out.push(line(ref, author, squash(body)));
    }
  }
  return out.length ? [`Comments:\n\n${out.join('\n')}`] : [];
}

/** A slide's comments (classic `p:cm` and modern comments with their replies). */
export async function slideComments(pkg: Package, slidePart: string): Promise<string> {
  const out: string[] = [];
  const rels = [...(await relationships(pkg, slidePart)).values()].filter((r) => !r.external && /\/comments$/i.test(r.type));
  if (!rels.length) return '';
  const authors = new Map<string, string>();
  for (const name of ['ppt/commentAuthors.xml', 'ppt/authors.xml']) {
    const xml = await pkg.xml(name);
    for (const author of xml ? findAll(xml, 'cmAuthor', 'author') : []) authors.set(attr(author, 'id') ?? '', attr(author, 'name') ?? '');
  }
  for (const rel of rels) {
    const xml = await pkg.xml(rel.target);
    if (!xml) continue;
    for (const comment of findAll(xml, 'cm')) {
      // A modern comment's replies come before its own text: only its direct children are its own.
      const body = childrenNamed(comment, 'txBody', 'text')[0];
      const text = body ? bodyText(body) : '';
      if (text) out.push(line('', authors.get(attr(comment, 'authorId') ?? '') ?? '', text));
      for (const reply of findAll(findFirst(comment, 'replyLst') ?? NONE, 'reply')) {
        const replyText = bodyText(childrenNamed(reply, 'txBody')[0] ?? reply);
        const author = authors.get(attr(reply, 'authorId') ?? '') ?? '';
        if (replyText) out.push(`  ${line('', `reply${author ? `, ${author}` : ''}`, replyText)}`);
      }
    }
  }
  return out.length ? `### Comments\n\n${out.join('\n')}` : '';
}
