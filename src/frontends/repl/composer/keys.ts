// Raw terminal input → keys for the composer. One chunk can hold several keys (type-ahead,
// a fast typist, a replayed queue); escape sequences a terminal sends for one key stay one key.

export type KeyName =
  | 'enter'
  | 'newline'
  | 'backspace'
  | 'delete'
  | 'left'
  | 'right'
  | 'up'
  | 'down'
  | 'home'
  | 'end'
  | 'wordLeft'
  | 'wordRight'
  | 'deleteWordBack'
  | 'killLineStart'
  | 'killLineEnd'
  | 'ctrlC'
  | 'ctrlD'
  | 'ctrlR'
  | 'ctrlG'
  | 'ctrlL'
  | 'ctrlO'
  | 'tab'
  | 'esc';

export type Key = { kind: 'text'; text: string } | { kind: 'paste'; text: string } | { kind: 'key'; name: KeyName };

const SEQUENCES: Record<string, KeyName> = {
  '\x1b\r': 'newline',
  '\x1b\n': 'newline',
  '\x1b[A': 'up',
  '\x1b[B': 'down',
  '\x1b[C': 'right',
  '\x1b[D': 'left',
  '\x1bOA': 'up',
  '\x1bOB': 'down',
  '\x1bOC': 'right',
  '\x1bOD': 'left',
  '\x1b[H': 'home',
  '\x1b[F': 'end',
  '\x1bOH': 'home',
  '\x1bOF': 'end',
  '\x1b[1~': 'home',
  '\x1b[4~': 'end',
  '\x1b[7~': 'home',
  '\x1b[8~': 'end',
  '\x1b[3~': 'delete',
  '\x1b[1;5D': 'wordLeft',
  '\x1b[1;5C': 'wordRight',
  '\x1b[1;3D': 'wordLeft',
  '\x1b[1;3C': 'wordRight',
  '\x1bb': 'wordLeft',
  '\x1bf': 'wordRight',
  '\x1b\x7f': 'deleteWordBack',
  // Shift-Enter in terminals that report it (xterm modifyOtherKeys, kitty): a newline too.
  '\x1b[13;2u': 'newline',
  '\x1b[27;2;13~': 'newline',
};

const CONTROLS: Record<string, KeyName> = {
  '\r': 'enter',
  '\n': 'newline',
  '\x7f': 'backspace',
  '\x08': 'backspace',
  '\t': 'tab',
  '\x01': 'home',
  '\x05': 'end',
  '\x02': 'left',
  '\x06': 'right',
  '\x10': 'up',
  '\x0e': 'down',
  '\x03': 'ctrlC',
  '\x04': 'ctrlD',
  '\x12': 'ctrlR',
  '\x07': 'ctrlG',
  '\x0c': 'ctrlL',
  '\x0f': 'ctrlO',
  '\x15': 'killLineStart',
  '\x0b': 'killLineEnd',
  '\x17': 'deleteWordBack',
};

/** Longest escape sequence first, so `\x1b[1;5D` is not read as Esc + text. */
const SEQUENCE_LIST = Object.keys(SEQUENCES).sort((a, b) => b.length - a.length);
/** Any other CSI or SS3 sequence (function keys, focus reports): consumed, ignored. */
const OTHER_ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|O[@-~])/;

export function parseKeys(data: string): Key[] {
  const keys: Key[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') keys.push({ kind: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < data.length) {
    const ch = data[i] ?? '';
    if (ch === '\x1b') {
      flush();
      const rest = data.slice(i);
      const seq = SEQUENCE_LIST.find((s) => rest.startsWith(s));
      if (seq !== undefined) {
        keys.push({ kind: 'key', name: SEQUENCES[seq] ?? 'esc' });
        i += seq.length;
        continue;
      }
      const other = OTHER_ESCAPE.exec(rest);
      if (other) {
        i += other[0].length;
        continue;
      }
      keys.push({ kind: 'key', name: 'esc' });
      i += 1;
      continue;
    }
    const control = CONTROLS[ch];
    if (control !== undefined) {
      flush();
      keys.push({ kind: 'key', name: control });
    } else if (ch >= ' ') {
      text += ch;
    }
    i += 1;
  }
  flush();
  return keys;
}

const BYTES: Partial<Record<KeyName, string>> = {
  ...Object.fromEntries(Object.entries(CONTROLS).map(([bytes, name]) => [name, bytes])),
  ...Object.fromEntries(Object.entries(SEQUENCES).map(([bytes, name]) => [name, bytes])),
};

/** A key as terminal bytes again (the type-ahead queue keeps raw input for the next prompt). */
export function keyBytes(key: Key): string {
  if (key.kind !== 'key') return key.text;
  return BYTES[key.name] ?? '';
}
