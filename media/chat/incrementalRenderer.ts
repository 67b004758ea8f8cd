/**
 * Renders a streaming markdown answer in linear time.
 *
 * The text is split into a committed prefix and a tail. Finished top-level blocks move into the
 * prefix and are rendered exactly once; only the tail (the block still growing plus the partial
 * last line) is rendered again on each update. A block counts as finished when, among the
 * complete lines, another top-level block has started after it: markdown-it's block parser never
 * revisits a closed block (reference definitions, the one construct that could, are disabled),
 * and the partial last line is ignored because a prefix of a line can start a block the whole
 * line does not (`#` vs `#tag`, `***` vs `***bold***`).
 *
 * Updates can be batched: `push()` only buffers text, `flush()` renders once for everything pushed
 * since (the webview flushes once per animation frame, however many deltas arrived). A render
 * parses the tail once and renders both the newly finished blocks and the rest from those tokens.
 *
 * An open fenced code block is the one tail that can grow without bound, so while it is open its
 * complete lines are appended as plain text (no re-render, no highlighting); once it closes it is
 * rendered (and highlighted) once like any other block.
 *
 * Invariant (tested): after `finish()` the container holds the same DOM as rendering the whole
 * text at once; between updates it matches the whole text's render except inside an open fence.
 */
import { HIGHLIGHT_PENDING, type MarkdownEnv, type MarkdownPipeline } from './markdown';

interface OpenFence {
  /** Offset in the tail where the fence's opening line starts. */
  start: number;
  /** Offset in the tail up to which content lines were appended to `code`. */
  appended: number;
  code: HTMLElement;
  partial: Text;
}

const FENCE_OPEN = /^(`{3,}|~{3,})/;
const ENDED_BY_BLANK_LINE = new Set(['paragraph_open', 'heading_open', 'hr', 'table_open', 'blockquote_open']);

export class IncrementalMarkdownRenderer {
  private committedParts: string[] = [];
  /** Everything not yet committed; never re-sliced from a longer string (that would be O(n)). */
  private tail = '';
  private pendingCarriageReturn = false;
  private tailNodes: ChildNode[] = [];
  private openFence: OpenFence | undefined;
  private finished = false;
  /** Text was pushed that is not rendered yet (`pendingLength` characters). */
  private dirty = false;
  private pushedSinceFlush = 0;
  /** A line was completed since the last render (otherwise the block decisions still stand). */
  private newLine = false;

  constructor(
    private readonly container: HTMLElement,
    private readonly pipeline: MarkdownPipeline,
    private readonly env: MarkdownEnv,
    /** Gets each run of finished blocks once, as it is committed (the growing tail never). */
    private readonly onFinishedBlocks?: (blocks: DocumentFragment) => void,
  ) {}

  /** The text received so far. */
  get text(): string {
    return this.committedParts.join('') + this.tail + (this.pendingCarriageReturn ? '\n' : '');
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** Whether `push()`ed text waits for a `flush()`. */
  get pending(): boolean {
    return this.dirty;
  }

  /** How many characters were pushed since the last render. */
  get pendingLength(): number {
    return this.pushedSinceFlush;
  }

  /** Adds text and renders it at once. */
  append(delta: string): void {
    this.push(delta);
    this.flush();
  }

  /** Adds text without rendering it (cheap): `flush()` renders everything pushed so far. */
  push(delta: string): void {
    if (this.finished || delta === '') {
      return;
    }
    let text = (this.pendingCarriageReturn ? '\r' : '') + delta;
    // A CRLF may arrive split across two deltas: hold a trailing CR back until the next one.
    this.pendingCarriageReturn = text.endsWith('\r');
    if (this.pendingCarriageReturn) {
      text = text.slice(0, -1);
    }
    const normalised = text.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD');
    this.tail += normalised;
    this.pushedSinceFlush += normalised.length;
    this.dirty = true;
    this.newLine ||= normalised.includes('\n');
  }

  /** Renders what was pushed since the last render (nothing when nothing was). */
  flush(): void {
    if (!this.dirty || this.finished) {
      return;
    }
    this.dirty = false;
    this.pushedSinceFlush = 0;
    if (this.newLine) {
      this.newLine = false;
      this.update();
    } else if (this.openFence) {
      // Only the partial last line changed: the blocks found last time are still the blocks.
      this.renderOpenFence(this.openFence.start);
    } else {
      this.renderTail();
    }
  }

  /** Renders whatever is left as final; later appends are ignored. */
  finish(): void {
    if (this.finished) {
      return;
    }
    if (this.pendingCarriageReturn) {
      this.tail += '\n';
      this.pendingCarriageReturn = false;
    }
    this.commit(this.tail.length);
    this.finished = true;
    this.dirty = false;
    this.pushedSinceFlush = 0;
  }

  private update(): void {
    const completeEnd = this.tail.lastIndexOf('\n') + 1;
    if (completeEnd === 0) {
      this.renderTail();
      return;
    }
    const blocks = this.pipeline.blocks(this.tail.slice(0, completeEnd), this.env).filter(isTopLevelBlock);
    const last = blocks[blocks.length - 1];
    if (!last?.map) {
      this.renderTail();
      return;
    }
    const fenceIsOpen = last.type === 'fence' && !isClosedFence(this.tail, last.markup, last.map);
    // The last block is final too when nothing after it can continue it: a closed fence, or a
    // block that a blank line ends (lists and indented code can continue after one).
    const blankAfter = lineOffset(this.tail, last.map[1]) < completeEnd;
    if ((last.type === 'fence' && !fenceIsOpen) || (blankAfter && ENDED_BY_BLANK_LINE.has(last.type))) {
      this.commitAndRenderTail(completeEnd, lineCount(this.tail, completeEnd));
      return;
    }
    const lastStart = lineOffset(this.tail, last.map[0]);
    // Only an unindented fence: its content lines are then exactly the text between the lines.
    if (fenceIsOpen && FENCE_OPEN.test(this.tail.slice(lastStart, lastStart + 3))) {
      if (blocks.length >= 2) {
        this.commit(lastStart);
      }
      this.renderOpenFence(blocks.length >= 2 ? 0 : lastStart);
      return;
    }
    this.commitAndRenderTail(blocks.length >= 2 ? lastStart : 0, last.map[0]);
  }

  /**
   * Commits the first `length` characters (ending at line `line`) and renders the rest, from one
   * parse of the tail: the finished blocks are the tokens before the first top-level block that
   * starts at `line`. Falls back to rendering the two parts separately when the parse has no block
   * boundary there (it always has, as far as the tests know).
   */
  private commitAndRenderTail(length: number, line: number): void {
    if (length <= 0) {
      this.renderTail();
      return;
    }
    const tokens = this.pipeline.parse(this.tail, this.env);
    let split = tokens.findIndex((t) => t.level === 0 && t.map !== null && t.map[0] >= line);
    if (split === -1) {
      split = tokens.length;
    }
    const boundary = split === tokens.length ? this.tail.slice(length).trim() === '' : tokens[split]!.map![0] === line;
    if (!boundary) {
      this.commit(length);
      this.renderTail();
      return;
    }
    const text = this.tail.slice(0, length);
    this.tail = this.tail.slice(length);
    this.committedParts.push(text);
    this.removeTailNodes();
    this.appendFinished(this.pipeline.renderTokens(tokens.slice(0, split), this.env));
    if (split < tokens.length) {
      const fragment = this.pipeline.renderTokens(tokens.slice(split), this.env);
      this.tailNodes = Array.from(fragment.childNodes);
      this.container.append(fragment);
    }
  }

  /** Moves the first `length` characters of the tail into the committed prefix, rendered once. */
  private commit(length: number): void {
    if (length <= 0) {
      return;
    }
    const text = this.tail.slice(0, length);
    this.tail = this.tail.slice(length);
    this.committedParts.push(text);
    this.removeTailNodes();
    this.appendFinished(this.pipeline.render(text, this.env));
  }

  private appendFinished(blocks: DocumentFragment): void {
    this.onFinishedBlocks?.(blocks);
    this.container.append(blocks);
  }

  private renderTail(): void {
    this.removeTailNodes();
    if (this.tail === '') {
      return;
    }
    const fragment = this.pipeline.render(this.tail, this.env);
    this.tailNodes = Array.from(fragment.childNodes);
    this.container.append(fragment);
  }

  private renderOpenFence(start: number): void {
    const completeEnd = this.tail.lastIndexOf('\n') + 1;
    let fence = this.openFence;
    if (!fence || fence.start !== start) {
      const openingEnd = this.tail.indexOf('\n', start) + 1;
      this.removeTailNodes();
      const fragment = this.pipeline.render(this.tail.slice(0, openingEnd), this.env);
      const code = fragment.querySelector('code');
      if (!code) {
        this.renderTail();
        return;
      }
      // Appended to as plain text while open: no late highlighting may replace its nodes.
      code.classList.remove(HIGHLIGHT_PENDING);
      const partial = code.ownerDocument.createTextNode('');
      code.append(partial);
      fence = { start, appended: openingEnd, code, partial };
      this.openFence = fence;
      this.tailNodes = Array.from(fragment.childNodes);
      this.container.append(fragment);
    }
    if (completeEnd > fence.appended) {
      fence.code.insertBefore(fence.code.ownerDocument.createTextNode(this.tail.slice(fence.appended, completeEnd)), fence.partial);
      fence.appended = completeEnd;
    }
    fence.partial.data = this.tail.slice(completeEnd);
  }

  private removeTailNodes(): void {
    for (const node of this.tailNodes) {
      node.remove();
    }
    this.tailNodes = [];
    this.openFence = undefined;
  }
}

function isTopLevelBlock(token: { level: number; nesting: number; map: [number, number] | null }): boolean {
  return token.level === 0 && token.nesting !== -1 && token.map !== null;
}

/** How many line breaks the first `end` characters of `text` hold. */
function lineCount(text: string, end: number): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    count++;
  }
  return count;
}

/** Offset of the start of line `line` (0-based) in `text`. */
function lineOffset(text: string, line: number): number {
  let offset = 0;
  for (let i = 0; i < line; i++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) {
      return text.length;
    }
    offset = next + 1;
  }
  return offset;
}

/** Whether the fence spanning lines `map` ends with its closing fence line. */
function isClosedFence(text: string, markup: string, map: [number, number]): boolean {
  const [first, end] = map;
  if (end - first < 2) {
    return false;
  }
  const lastLineStart = lineOffset(text, end - 1);
  const lastLineEnd = text.indexOf('\n', lastLineStart);
  const line = text.slice(lastLineStart, lastLineEnd === -1 ? text.length : lastLineEnd);
  const trimmed = line.replace(/^ {0,3}/, '');
  const marker = markup[0] ?? '`';
  let count = 0;
  while (trimmed[count] === marker) {
    count++;
  }
  return count >= markup.length && trimmed.slice(count).trim() === '';
}
