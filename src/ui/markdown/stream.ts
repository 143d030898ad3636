// Markdown while it streams. The answer arrives a few characters at a time, but Markdown can only
// be rendered by the block: so text is split into blocks at blank lines outside code fences (and
// after a fence closes or a heading ends); a finished block is rendered whole with `marked`.
// The block still being written is shown as it grows, one source line behind: its rendering
// without the last line (which may still change it) is drawn, and only the rows not drawn yet are
// written. Tables wait for their last row (column widths depend on it). A fenced code block is
// drawn by itself (no lexer): each complete line is coloured with up to 50 lines of context
// above it. The text after the last newline waits for its newline (or the end of the answer):
// the person sees progress line by line, never a half-parsed line. Meanwhile that unfinished
// line is shown as a dim preview on one row (its end, if it is longer), replaced by the rendered
// rows once the line is complete: erasing stays within the row (CR, erase line), so a wrong
// width guess can never erase text above it.
// Re-rendering is batched geometrically (after 1, 2, 3, … 25% more lines; code at most 64 lines
// at a time), so a block of n lines costs O(n) rendering in total, not O(n²).
import { lexer } from 'marked';
import { highlightRows } from './highlight.ts';
import { renderBlocks } from './render.ts';
import { stringWidth } from '../width.ts';

/** Turns streamed (already sanitised) answer text into terminal output, block by block. */
export interface MarkdownStream {
  /** Takes the next piece of text; returns what is complete enough to show now. */
  push(text: string): string;
  /** The rest, at the end of the answer (or before something else is shown). */
  end(): string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const BLANK = /^[ \t]*$/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const TABLE_ROW = /^ {0,3}\|/;

interface Fence {
  char: string;
  length: number;
  indent: number;
  lang: string;
}

/** A fenced code block being written: drawn line by line, without the lexer. */
interface OpenCode {
  fence: Fence;
  lines: string[];
  drawn: number;
}

/** Lines of earlier code highlighted again with new ones, so a comment or string that opened
 * above still colours them right; constructs longer than this may be coloured as plain. */
const CODE_CONTEXT = 50;
/** At most this many code lines wait to be drawn together (beyond the first few, one at a time). */
const CODE_BATCH_MAX = 64;

function fenceOpening(line: string): Fence | undefined {
  const m = FENCE.exec(line);
  if (!m?.[1]) return undefined;
  const info = line.slice(m[0].length);
  // A backtick fence's info string cannot contain a backtick (CommonMark).
  if (m[1][0] === '`' && info.includes('`')) return undefined;
  return { char: m[1][0] ?? '`', length: m[1].length, indent: m[0].length - m[1].length, lang: info.trim().split(/\s+/)[0] ?? '' };
}

function closesFence(line: string, fence: Fence): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return m?.[1] !== undefined && m[1][0] === fence.char && m[1].length >= fence.length;
}

export function renderMarkdown(source: string, width: number): string[] {
  return renderBlocks(lexer(source, { gfm: true }), { width });
}

export class StreamingMarkdown implements MarkdownStream {
  /** Text after the last newline. */
  private partial = '';
  /** Complete source lines of the block being written (not a code fence). */
  private block: string[] = [];
  private code: OpenCode | undefined;
  /** Rows of the current block already written. */
  private drawn = 0;
  /** Block lines at the last rendering (for the geometric batching). */
  private renderedAt = 0;
  /** Whether any block was written (blocks are separated by one empty row). */
  private wroteBlock = false;
  /** Whether the preview of the unfinished line is on screen (the cursor is on its row). */
  private previewShown = false;

  constructor(
    private readonly columns: () => number,
    private readonly preview = false,
  ) {}

  push(text: string): string {
    const joined = this.partial + text;
    const nl = joined.lastIndexOf('\n');
    let out = '';
    if (nl === -1) this.partial = joined;
    else {
      this.partial = joined.slice(nl + 1);
      for (const line of joined.slice(0, nl).split('\n')) out += this.line(line);
      out += this.code ? this.drawCode(this.code, false) : this.drawOpenBlock();
    }
    if (!this.preview || (out === '' && nl === -1 && text === '')) return out;
    const erase = this.previewShown ? '\r\x1b[K' : '';
    this.previewShown = this.partial !== '';
    return erase + out + (this.previewShown ? previewRow(this.partial, this.width() - 2) : '');
  }

  end(): string {
    let out = this.previewShown ? '\r\x1b[K' : '';
    this.previewShown = false;
    if (this.partial !== '') out += this.line(this.partial);
    this.partial = '';
    out += this.closeBlock();
    return out;
  }

  private width(): number {
    return Math.max(20, this.columns() - 1);
  }

  /** One complete source line: extends the block, or ends it and starts the next. */
  private line(line: string): string {
    if (this.code) {
      if (!closesFence(line, this.code.fence)) {
        // Code lines lose the fence's own indentation, as CommonMark says.
        const indent = /^ */.exec(line)?.[0].length ?? 0;
        this.code.lines.push(line.slice(Math.min(indent, this.code.fence.indent)));
        return '';
      }
      return this.closeBlock();
    }
    if (BLANK.test(line)) return this.closeBlock();
    const fence = fenceOpening(line);
    if (fence) {
      const out = this.closeBlock();
      this.code = { fence, lines: [], drawn: 0 };
      return out;
    }
    if (ATX_HEADING.test(line)) {
      const out = this.closeBlock();
      this.block.push(line);
      return out + this.closeBlock();
    }
    this.block.push(line);
    return '';
  }

  private closeBlock(): string {
    if (this.code) {
      const out = this.drawCode(this.code, true);
      this.code = undefined;
      return out;
    }
    if (this.block.length === 0) return '';
    const rows = renderMarkdown(this.block.join('\n'), this.width());
    const out = this.rows(rows.slice(this.drawn), this.drawn === 0);
    this.block = [];
    this.drawn = 0;
    this.renderedAt = 0;
    return out;
  }

  /** New lines of a code block, coloured with some lines of context before them. */
  private drawCode(code: OpenCode, final: boolean): string {
    const waiting = code.lines.length - code.drawn;
    if (waiting === 0) return '';
    if (!final && waiting < Math.min(CODE_BATCH_MAX, Math.max(1, Math.floor(code.drawn / 4)))) return '';
    const from = Math.max(0, code.drawn - CODE_CONTEXT);
    const rows = highlightRows(code.lines.slice(from).join('\n'), code.fence.lang).slice(code.drawn - from);
    const first = code.drawn === 0;
    code.drawn = code.lines.length;
    // Indented, never wrapped: copying a block from the terminal gives the code back.
    return this.rows(
      rows.map((r) => `  ${r}`),
      first,
    );
  }

  /** Draws the rows of the growing block that can no longer change. */
  private drawOpenBlock(): string {
    const lines = this.block.length;
    if (lines === 0) return '';
    if (lines - this.renderedAt < Math.max(1, Math.floor(this.renderedAt / 4))) return '';
    const stable = this.block.slice(0, this.stableLines());
    if (stable.length === 0) return '';
    this.renderedAt = lines;
    const rows = renderMarkdown(stable.join('\n'), this.width());
    if (rows.length <= this.drawn) return '';
    const out = this.rows(rows.slice(this.drawn), this.drawn === 0);
    this.drawn = rows.length;
    return out;
  }

  /**
   * How many lines of the growing block are drawn now: the last line may still change the block
   * (a table's delimiter row, a list item's continuation), and table rows wait for the whole
   * table (its column widths depend on every row).
   */
  private stableLines(): number {
    const table = this.block.findIndex((l) => TABLE_ROW.test(l));
    return table === -1 ? this.block.length - 1 : Math.min(table, this.block.length - 1);
  }

  /** Writes rows; the first rows of a block are set apart from the block before by an empty row. */
  private rows(rows: string[], firstOfBlock: boolean): string {
    if (rows.length === 0) return '';
    const gap = firstOfBlock && this.wroteBlock ? '\n' : '';
    this.wroteBlock = true;
    return `${gap}${rows.join('\n')}\n`;
  }
}

/** The unfinished line, dim, fitted to one row (its last cells if it is longer). */
function previewRow(line: string, cells: number): string {
  const flat = line.replace(/\t/g, ' ');
  if (stringWidth(flat) <= cells) return `\x1b[2m${flat}\x1b[22m`;
  const chars = [...flat];
  let width = 0;
  let from = chars.length;
  while (from > 0 && width + stringWidth(chars[from - 1] ?? '') <= cells - 1) width += stringWidth(chars[--from] ?? '');
  return `\x1b[2m…${chars.slice(from).join('')}\x1b[22m`;
}

/** The renderer for the terminal: with the live preview of the unfinished line. */
export function createMarkdownStream(opts: { columns: () => number }): MarkdownStream {
  return new StreamingMarkdown(opts.columns, true);
}
