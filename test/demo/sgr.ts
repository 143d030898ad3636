// The graphic rendition (SGR, `ESC [ … m`) state of a terminal, reduced to what a transcript
// needs: apply a sequence to the current state, and write the state back as one sequence.
export interface Style {
  readonly bold: boolean;
  readonly dim: boolean;
  readonly italic: boolean;
  readonly underline: boolean;
  readonly inverse: boolean;
  readonly strike: boolean;
  /** Foreground as its SGR parameters (`36`, `38;5;208`, `38;2;1;2;3`), or null for the default. */
  readonly fg: string | null;
  readonly bg: string | null;
}

export const PLAIN_STYLE: Style = { bold: false, dim: false, italic: false, underline: false, inverse: false, strike: false, fg: null, bg: null };

/** `38;5;n` / `38;2;r;g;b` (and the 48 forms) take their following parameters along. */
function extendedColour(params: number[], at: number): { value: string; next: number } | null {
  const mode = params[at + 1];
  if (mode === 5 && params[at + 2] !== undefined) return { value: params.slice(at, at + 3).join(';'), next: at + 3 };
  if (mode === 2 && params[at + 4] !== undefined) return { value: params.slice(at, at + 5).join(';'), next: at + 5 };
  return null;
}

const isBasicFg = (p: number): boolean => (p >= 30 && p <= 37) || (p >= 90 && p <= 97);
const isBasicBg = (p: number): boolean => (p >= 40 && p <= 47) || (p >= 100 && p <= 107);

/** Single-parameter attribute switches: which field they set and to what. */
const SWITCHES: ReadonlyMap<number, Partial<Style>> = new Map<number, Partial<Style>>([
  [1, { bold: true }],
  [2, { dim: true }],
  [3, { italic: true }],
  [4, { underline: true }],
  [7, { inverse: true }],
  [9, { strike: true }],
  [22, { bold: false, dim: false }],
  [23, { italic: false }],
  [24, { underline: false }],
  [27, { inverse: false }],
  [29, { strike: false }],
  [39, { fg: null }],
  [49, { bg: null }],
]);

/** The style after the parameters of one SGR sequence (`"1;36"`; empty means reset). */
export function applySgr(style: Style, paramText: string): Style {
  const params = paramText === '' ? [0] : paramText.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  let next: Style = style;
  for (let i = 0; i < params.length; ) {
    const p = params[i] ?? 0;
    const extended = p === 38 || p === 48 ? extendedColour(params, i) : null;
    if (extended) {
      next = p === 38 ? { ...next, fg: extended.value } : { ...next, bg: extended.value };
      i = extended.next;
      continue;
    }
    if (p === 0) next = PLAIN_STYLE;
    else if (isBasicFg(p)) next = { ...next, fg: String(p) };
    else if (isBasicBg(p)) next = { ...next, bg: String(p) };
    else next = { ...next, ...SWITCHES.get(p) };
    i += 1;
  }
  return next;
}

/** The parameters that recreate `style` from a reset (`""` for the plain style). */
export function sgrParams(style: Style): string {
  const parts: string[] = [];
  if (style.bold) parts.push('1');
  if (style.dim) parts.push('2');
  if (style.italic) parts.push('3');
  if (style.underline) parts.push('4');
  if (style.inverse) parts.push('7');
  if (style.strike) parts.push('9');
  if (style.fg !== null) parts.push(style.fg);
  if (style.bg !== null) parts.push(style.bg);
  return parts.join(';');
}
