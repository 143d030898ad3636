// ANSI styling that switches off for NO_COLOR, --no-color and non-TTY streams.
export interface Theme {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
  /** Inverse video: marks escapes shown for control characters apart from literal text. */
  inverse(s: string): string;
}

const wrap =
  (open: number, close: number) =>
  (s: string): string =>
    `\x1b[${open}m${s}\x1b[${close}m`;

export const COLOR_THEME: Theme = {
  dim: wrap(2, 22),
  bold: wrap(1, 22),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
  magenta: wrap(35, 39),
  inverse: wrap(7, 27),
};

const id = (s: string): string => s;
export const PLAIN_THEME: Theme = { dim: id, bold: id, red: id, green: id, yellow: id, cyan: id, magenta: id, inverse: id };

export function pickTheme(wantColor: boolean, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Theme {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return wantColor && !noColor && stream.isTTY === true ? COLOR_THEME : PLAIN_THEME;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** Whether `theme` writes colours (the terminal shows them, nobody asked for none). */
export function isColorTheme(theme: Theme): boolean {
  return theme === COLOR_THEME;
}
