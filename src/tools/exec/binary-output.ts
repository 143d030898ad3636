// What the model is shown of a session's output when it is not text. Output is decoded as UTF-8,
// so random bytes (`head -c 4096 /dev/urandom`, a compressed file sent to the terminal) arrive as
// U+FFFD replacement characters mixed with raw NUL, ESC and other control bytes: thousands of
// tokens that say nothing, and raw control bytes in the model's input. Mostly-binary output is
// replaced by one line saying how much there was; text keeps its characters, with any control
// byte other than newline, tab and carriage return written as a visible escape (\x00, \x1b).

/** Above this share of suspicious characters the output is taken for binary (random bytes give ~60%, text ~0). */
const BINARY_SHARE = 0.3;

/** C0 controls but \n \t \r, DEL and the C1 controls (how stray high bytes may decode). */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

function isControlCode(c: number): boolean {
  return (c < 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0d) || (c >= 0x7f && c <= 0x9f);
}

/**
 * True when most of `text` is not text: replacement characters (bytes that were not UTF-8) and
 * control bytes other than \n \t \r. Counted by code unit, allocating nothing: it runs on every answer.
 */
export function looksBinary(text: string): boolean {
  if (text.length === 0) return false;
  let suspicious = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfffd || isControlCode(c)) suspicious++;
  }
  return suspicious / text.length > BINARY_SHARE;
}

/** Control bytes other than \n \t \r as \xNN, so none reaches the model raw (text without any is returned as it is). */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The output as the model gets it: a note in place of binary output, else the text with controls escaped. */
export function outputForModel(text: string, bytes: number): string {
  if (looksBinary(text)) return `[binary output: ${bytes} bytes not shown]`;
  return escapeControls(text);
}
