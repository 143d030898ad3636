// What the model is shown of a session's output when it is not text. Output is decoded as UTF-8,
// so random bytes (`head -c 4096 /dev/urandom`, a compressed file sent to the terminal) arrive as
// U+FFFD replacement characters mixed with raw NUL, ESC and other control bytes: thousands of
// tokens that say nothing, and raw control bytes in the model's input. Mostly-binary output is
// replaced by one line saying how much there was; text keeps its characters, with any control
// byte other than newline, tab and carriage return written as a visible escape (\x00, \x1b).

/** Control bytes kept as they are: line structure and indentation. */
const KEPT_CONTROLS = new Set(['\n', '\t', '\r']);

/** Above this share of suspicious characters the output is taken for binary (random bytes give ~60%, text ~0). */
const BINARY_SHARE = 0.3;

function isControl(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) && !KEPT_CONTROLS.has(ch);
}

/** A replacement character (a byte that was not UTF-8) or a control byte other than \n \t \r. */
function isSuspicious(ch: string): boolean {
  return ch === '\uFFFD' || isControl(ch);
}

/** True when most of `text` is not text: replacement characters and control bytes. */
export function looksBinary(text: string): boolean {
  if (text.length === 0) return false;
  let suspicious = 0;
  for (const ch of text) if (isSuspicious(ch)) suspicious++;
  return suspicious / text.length > BINARY_SHARE;
}

/** Control bytes other than \n \t \r as \xNN, so none reaches the model raw. */
export function escapeControls(text: string): string {
  let out = '';
  for (const ch of text) out += isControl(ch) ? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}` : ch;
  return out;
}

/** The output as the model gets it: a note in place of binary output, else the text with controls escaped. */
export function outputForModel(text: string, bytes: number): string {
  if (looksBinary(text)) return `[binary output: ${bytes} bytes not shown]`;
  return escapeControls(text);
}
