// Terminal hyperlinks (OSC 8: ESC ] 8 ; ; URL ST text ESC ] 8 ; ; ST) for the source list under
// an answer that cites the web. They are written by the renderer itself — never taken from model
// text — only for http(s) URLs, and only where the terminal is known to show them; elsewhere the
// URL is plain text. FORCE_HYPERLINK=1 / 0 overrides the guess.

/** C0 and C1 control characters and DEL: a title or URL from the server must not carry escapes. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Bidi overrides and isolates, zero-width characters: they make a line read unlike its bytes. */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function plainText(s: string): string {
  return s.replace(CONTROL, ' ').replace(INVISIBLE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/** Terminals known to render OSC 8 (others print the escape or nothing useful). */
export function supportsHyperlinks(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const forced = env.FORCE_HYPERLINK;
  if (forced !== undefined && forced !== '') return forced !== '0';
  if (stream.isTTY !== true || env.TERM === 'dumb') return false;
  // Multiplexers pass OSC 8 through only when configured to: do not guess.
  if (env.TMUX !== undefined || (env.TERM ?? '').startsWith('screen')) return false;
  if (env.WT_SESSION !== undefined || env.KONSOLE_VERSION !== undefined || env.DOMTERM !== undefined) return true;
  const vte = Number(env.VTE_VERSION);
  if (Number.isFinite(vte) && vte >= 5000) return true;
  if (['iTerm.app', 'WezTerm', 'vscode', 'ghostty', 'Hyper'].includes(env.TERM_PROGRAM ?? '')) return true;
  return ['xterm-kitty', 'alacritty', 'foot', 'foot-extra', 'xterm-ghostty'].includes(env.TERM ?? '');
}

/** A safe link target: http(s), no spaces or control characters (which would end the sequence). */
export function linkableUrl(url: string): boolean {
  return /^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i.test(url);
}

export function hyperlink(text: string, url: string): string {
  if (!linkableUrl(url)) return text;
  return `\x1b]8;;${url}\x1b\\${text}\x1b]8;;\x1b\\`;
}
