// Markdown tokens (from the `marked` lexer) → terminal rows with ANSI styles. Only structure
// and styles come from here; the text itself was sanitised before it was parsed, and entities
// decoded here can never produce a control character.
import type { MarkedToken, Token, Tokens } from 'marked';
import { highlightRows } from './highlight.ts';
import { padToWidth, stringWidth, wrapWords } from '../width.ts';

const SGR = {
  bold: ['\x1b[1m', '\x1b[22m'],
  italic: ['\x1b[3m', '\x1b[23m'],
  underline: ['\x1b[4m', '\x1b[24m'],
  strike: ['\x1b[9m', '\x1b[29m'],
  dim: ['\x1b[2m', '\x1b[22m'],
  cyan: ['\x1b[36m', '\x1b[39m'],
  magenta: ['\x1b[35m', '\x1b[39m'],
  blue: ['\x1b[34m', '\x1b[39m'],
} as const;
type StyleName = keyof typeof SGR;

function style(name: StyleName, s: string): string {
  const [open, close] = SGR[name];
  return `${open}${s}${close}`;
}

const KNOWN = new Set<string>([
  'blockquote',
  'br',
  'checkbox',
  'code',
  'codespan',
  'def',
  'del',
  'em',
  'escape',
  'heading',
  'hr',
  'html',
  'image',
  'link',
  'list',
  'list_item',
  'paragraph',
  'space',
  'strong',
  'table',
  'text',
]);

/** The lexer only makes these types (no extensions are registered). */
function isMarked(t: Token): t is MarkedToken {
  return KNOWN.has(t.type);
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** HTML character references in text; one that would make a control character stays as written. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (whole, ref: string) => {
    if (!ref.startsWith('#')) return NAMED[ref.toLowerCase()] ?? whole;
    const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    const control = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff);
    return control ? whole : String.fromCodePoint(cp);
  });
}

/** Inline tokens → one styled string (soft line breaks stay newlines). */
export function renderInline(tokens: Token[] | undefined): string {
  let out = '';
  for (const t of tokens ?? []) {
    if (!isMarked(t)) {
      out += t.raw;
      continue;
    }
    out += inline(t);
  }
  return out;
}

function inline(t: MarkedToken): string {
  switch (t.type) {
    case 'text':
      return t.tokens ? renderInline(t.tokens) : decodeEntities(t.text);
    case 'escape':
      return t.text;
    case 'strong':
      return style('bold', renderInline(t.tokens));
    case 'em':
      return style('italic', renderInline(t.tokens));
    case 'del':
      return style('strike', renderInline(t.tokens));
    case 'codespan':
      return style('cyan', t.text);
    case 'br':
      return '\n';
    case 'link': {
      const text = renderInline(t.tokens);
      // The address is shown, never hidden behind the text (no OSC 8): the person sees where it goes.
      const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
      if (t.autolink === true || plain === t.href || `mailto:${plain}` === t.href) return style('underline', style('blue', text));
      return `${style('underline', text)} ${style('dim', `(${t.href})`)}`;
    }
    case 'image':
      return style('dim', `[image: ${decodeEntities(t.text) || t.href}] (${t.href})`);
    case 'html':
      return style('dim', t.text);
    default:
      return 'raw' in t ? t.raw : '';
  }
}

/** Which attribute an SGR parameter sets (its key), and whether it turns the attribute off. */
function sgrEffect(code: number): { key: string; off: boolean } | undefined {
  if (code === 1 || code === 2) return { key: 'weight', off: false };
  if (code === 22) return { key: 'weight', off: true };
  if (code === 3 || code === 23) return { key: 'italic', off: code === 23 };
  if (code === 4 || code === 24) return { key: 'underline', off: code === 24 };
  if (code === 7 || code === 27) return { key: 'inverse', off: code === 27 };
  if (code === 9 || code === 29) return { key: 'strike', off: code === 29 };
  if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97) || code === 39) return { key: 'fg', off: code === 39 };
  if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107) || code === 49) return { key: 'bg', off: code === 49 };
  return undefined;
}

/**
 * Rows of a styled text wrapped at `width`: styles open at a row end are closed there and
 * reopened on the next row, so indentation added before a row is never underlined or coloured.
 */
export function wrapStyled(text: string, width: number): string[] {
  const rows = text.split('\n').flatMap((line) => wrapWords(line, width));
  // The sequences in force, by attribute; bold and dim share one (22 ends both).
  const open = new Map<string, string[]>();
  return rows.map((row) => {
    const reopened = [...open.values()].flat().join('');
    for (const m of row.matchAll(/\x1b\[([0-9;]*)m/g)) {
      const code = m[1] === '' ? 0 : Number(m[1]);
      if (code === 0) {
        open.clear();
        continue;
      }
      const effect = sgrEffect(code);
      if (!effect) continue;
      if (effect.off) open.delete(effect.key);
      else open.set(effect.key, [...(effect.key === 'weight' ? (open.get('weight') ?? []) : []), m[0]]);
    }
    return reopened + row + (open.size > 0 ? '\x1b[0m' : '');
  });
}

export interface RenderContext {
  width: number;
}

const BULLETS = ['•', '◦', '▪'];

/** Block tokens → rows, with one empty row between blocks (none in a tight list item). */
export function renderBlocks(tokens: Token[], ctx: RenderContext, depth = 0, gap = true): string[] {
  const rows: string[] = [];
  for (const t of tokens) {
    if (!isMarked(t) || t.type === 'space' || t.type === 'def' || t.type === 'checkbox') continue;
    const block = renderBlock(t, ctx, depth);
    if (block.length === 0) continue;
    if (rows.length > 0 && gap) rows.push('');
    rows.push(...block);
  }
  return rows;
}

function renderBlock(t: MarkedToken, ctx: RenderContext, depth: number): string[] {
  const width = Math.max(10, ctx.width);
  switch (t.type) {
    case 'heading': {
      const text = renderInline(t.tokens);
      const styled =
        t.depth === 1 ? style('bold', style('underline', style('magenta', text))) : t.depth === 2 ? style('bold', style('magenta', text)) : style('bold', text);
      return wrapStyled(styled, width);
    }
    case 'paragraph':
      return wrapStyled(renderInline(t.tokens), width);
    case 'text':
      return wrapStyled(t.tokens ? renderInline(t.tokens) : decodeEntities(t.text), width);
    case 'code':
      return codeRows(t);
    case 'blockquote':
      return renderBlocks(t.tokens, { width: width - 2 }, depth).map((r) => `${style('dim', '│')} ${r}`);
    case 'list':
      return listRows(t, ctx, depth);
    case 'table':
      return tableRows(t, width);
    case 'hr':
      return [style('dim', '─'.repeat(Math.min(width, 60)))];
    case 'html':
      return t.text
        .replace(/\n+$/, '')
        .split('\n')
        .map((r) => style('dim', r));
    default:
      return wrapStyled(inline(t), width);
  }
}

function codeRows(t: Tokens.Code): string[] {
  const text = t.text.replace(/\n+$/, '');
  const rows = t.codeBlockStyle === 'indented' ? text.split('\n') : highlightRows(text, t.lang ?? '');
  // Indented, never wrapped: copying a block from the terminal gives the code back.
  return rows.map((r) => `  ${r}`);
}

function listRows(t: Tokens.List, ctx: RenderContext, depth: number): string[] {
  const rows: string[] = [];
  const start = typeof t.start === 'number' ? t.start : 1;
  const numberWidth = String(start + t.items.length - 1).length;
  t.items.forEach((item, i) => {
    const bullet = t.ordered ? `${String(start + i).padStart(numberWidth)}.` : style('dim', BULLETS[depth % BULLETS.length] ?? '•');
    const marker = item.task ? `${bullet} ${item.checked === true ? '☑' : '☐'}` : bullet;
    const markerWidth = stringWidth(marker) + 1;
    const body = renderBlocks(item.tokens, { width: ctx.width - markerWidth }, depth + 1, item.loose);
    if (item.loose && i > 0) rows.push('');
    body.forEach((row, k) => rows.push(k === 0 ? `${marker} ${row}` : `${' '.repeat(markerWidth)}${row}`));
    if (body.length === 0) rows.push(marker);
  });
  return rows;
}

function tableRows(t: Tokens.Table, width: number): string[] {
  const header = t.header.map((c) => style('bold', renderInline(c.tokens)));
  const body = t.rows.map((r) => r.map((c) => renderInline(c.tokens)));
  const columns = header.length;
  const natural = header.map((h, i) => Math.max(stringWidth(h), ...body.map((r) => stringWidth(r[i] ?? ''))));
  // Borders take 3 cells per column plus one; what is left is shared, wide columns shrink first.
  const room = Math.max(columns * 3, width - (3 * columns + 1));
  const widths = fitColumns(natural, room);
  const line = (l: string, m: string, r: string): string => style('dim', l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r);
  const rowLines = (cells: string[]): string[] => {
    const wrapped = widths.map((w, i) => wrapStyled(cells[i] ?? '', w));
    const height = Math.max(1, ...wrapped.map((c) => c.length));
    const out: string[] = [];
    for (let k = 0; k < height; k++) {
      const parts = widths.map((w, i) => padToWidth(wrapped[i]?.[k] ?? '', w, t.align[i] ?? 'left'));
      out.push(`${style('dim', '│')} ${parts.join(` ${style('dim', '│')} `)} ${style('dim', '│')}`);
    }
    return out;
  };
  return [line('┌', '┬', '┐'), ...rowLines(header), line('├', '┼', '┤'), ...body.flatMap(rowLines), line('└', '┴', '┘')];
}

/** Column widths that fit `room`: each keeps its natural width if it can, the widest give way. */
export function fitColumns(natural: number[], room: number): number[] {
  const widths = natural.map((w) => Math.max(1, w));
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > room) {
    const widest = Math.max(...widths);
    if (widest <= 3) break;
    const i = widths.indexOf(widest);
    widths[i] = widest - 1;
    total--;
  }
  return widths;
}
