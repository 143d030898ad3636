// Markdown while it streams. The answer arrives a few characters at a time, but Markdown can only
// be rendered by the block: so text is split into blocks at blank lines outside code fences (and
// after a fence closes or a heading ends); a finished block is rendered whole with `marked`.
// The block still being written is shown as it grows, one source line behind: its rendering
// without the last (possibly incomplete) line is drawn, and only the rows not drawn yet are
// written. A fenced code block shows each line as soon as it is complete. Tables wait for their
// last row (column widths depend on it). The text after the last newline waits for its newline
// (or the end of the answer): the person sees progress line by line, never a half-parsed line.
// Re-rendering the growing block is batched geometrically (after 1, 2, 3, … 25% more lines), so a
// block of n lines costs O(n) rendering in total, not O(n²).
import { lexer } from 'marked';
import type { MarkdownStream } from '../terminal-output.ts';
import { renderBlocks } from './render.ts';

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const BLANK = /^[ \t]*$/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const TABLE_ROW = /^ {0,3}\|/;

interface Fence { char: string; length: number }

function fenceOpening(line: string): Fence | undefined {
  const m = FENCE.exec(line);
  if (!m?.[1]) return undefined;
  // A backtick fence's info string cannot contain a backtick (CommonMark).
  if (m[1][0] === '`' && line.slice(m[0].length).includes('`')) return undefined;
  return { char: m[1][0] ?? '`', length: m[1].length };
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
  /** Complete source lines of the block being written. */
  private block: string[] = [];
  private fence: Fence | undefined;
  /** Rows of the current block already written. */
  private drawn = 0;
  /** Block lines at the last rendering (for the geometric batching). */
  private renderedAt = 0;
  /** Whether any block was written (blocks are separated by one empty row). */
  private wroteBlock = false;

  constructor(private readonly columns: () => number) {}

  push(text: string): string {
    const joined = this.partial + text;
    const nl = joined.lastIndexOf('\n');
    if (nl === -1) {
      this.partial = joined;
      return '';
    }
    this.partial = joined.slice(nl + 1);
    let out = '';
    for (const line of joined.slice(0, nl).split('\n')) out += this.line(line);
    return out + this.drawOpenBlock();
  }

  end(): string {
    let out = '';
    if (this.partial !== '') out += this.line(this.partial);
    this.partial = '';
    out += this.closeBlock();
    this.fence = undefined;
    return out;
  }

  private width(): number {
    return Math.max(20, this.columns() - 1);
  }

  /** One complete source line: extends the block, or ends it and starts the next. */
  private line(line: string): string {
    if (this.fence) {
      this.block.push(line);
      if (!closesFence(line, this.fence)) return '';
      this.fence = undefined;
      return this.closeBlock();
    }
    if (BLANK.test(line)) return this.closeBlock();
    const fence = fenceOpening(line);
    let out = '';
    if (fence) {
      out += this.closeBlock();
      this.fence = fence;
      this.block.push(line);
      return out;
    }
    if (ATX_HEADING.test(line)) {
      out += this.closeBlock();
      this.block.push(line);
      return out + this.closeBlock();
    }
    this.block.push(line);
    return out;
  }

  private closeBlock(): string {
    if (this.block.length === 0) return '';
    const rows = renderMarkdown(this.block.join('\n'), this.width());
    const out = this.rows(rows.slice(this.drawn));
    this.block = [];
    this.drawn = 0;
    this.renderedAt = 0;
    return out;
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
    return this.rows(rows.slice(this.drawn), rows.length);
  }

  /**
   * How many lines of the growing block are drawn now. Inside a fence every complete line is
   * final (the opening line alone shows nothing yet). Elsewhere the last line may still change
   * the block (a table's delimiter row, a list item's continuation), and table rows wait for the
   * whole table: its column widths depend on every row.
   */
  private stableLines(): number {
    if (this.fence) return this.block.length >= 2 ? this.block.length : 0;
    const table = this.block.findIndex((l) => TABLE_ROW.test(l));
    return table === -1 ? this.block.length - 1 : Math.min(table, this.block.length - 1);
  }

  private rows(rows: string[], drawnAfter?: number): string {
    if (rows.length === 0) return '';
    const gap = this.drawn === 0 && this.wroteBlock ? '\n' : '';
    this.drawn = drawnAfter ?? this.drawn + rows.length;
    this.wroteBlock = true;
    return `${gap}${rows.join('\n')}\n`;
  }
}

export function createMarkdownStream(opts: { columns: () => number }): MarkdownStream {
  return new StreamingMarkdown(opts.columns);
}
