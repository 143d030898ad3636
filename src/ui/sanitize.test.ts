import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterSgr, sameColour, sanitizeLine, sanitizeText, showControls, TerminalSanitizer, type SanitizeOptions } from './sanitize.ts';
import { stringWidth } from './width.ts';

// Property tests: a fixed seed, printed, overridable to replay a failure.
const SEED = Number(process.env.AGENTX_TEST_SEED ?? 20_250_614);
const RUNS = 400;
console.log(`sanitize properties: seed ${SEED} (replay with AGENTX_TEST_SEED=${SEED})`);

/** The output of feeding `chunks` one by one, then ending. */
function streamed(chunks: string[], opts: SanitizeOptions = {}): string {
  const z = new TerminalSanitizer(opts);
  return chunks.map((c) => z.push(c)).join('') + z.end();
}

/** Every ESC in `s` starts a plain SGR sequence; no other C0 (but \n, \t), DEL or C1 anywhere. */
function onlySafe(s: string, allowSgr: boolean): boolean {
  const withoutSgr = allowSgr ? s.replace(/\x1b\[[0-9;:]*m/g, '') : s;
  return !/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(withoutSgr);
}

const ATTACKS: Record<string, string> = {
  'window title (OSC 0, BEL)': '\x1b]0;pwned\x07',
  'window title (OSC 2, ST)': '\x1b]2;pwned\x1b\\',
  'alternate screen': '\x1b[?1049h',
  'mouse tracking': '\x1b[?1000h\x1b[?1006h',
  'clear screen': '\x1b[2J\x1b[3J\x1b[H',
  'cursor movement': '\x1b[5A\x1b[10C\x1b7\x1b8',
  'erase line': '\x1b[2K',
  hyperlink: '\x1b]8;;https://evil.example\x1b\\',
  'clipboard write (OSC 52)': '\x1b]52;c;cm0gLXJmIH4=\x07',
  'full reset': '\x1bc',
  'charset switch': '\x1b(0',
  DCS: '\x1bPq#0;2;0;0;0\x1b\\',
  '8-bit CSI': '\x9b2J',
  '8-bit OSC': '\x9d0;pwned\x9c',
  'keypad mode': '\x1b=',
  'bracketed paste off': '\x1b[?2004l',
  'cursor hide': '\x1b[?25l',
};

describe('TerminalSanitizer: escape sequences', () => {
  for (const [name, attack] of Object.entries(ATTACKS)) {
    it(`removes ${name}`, () => {
      const out = sanitizeText(`before${attack}after`);
      expect(out).toBe('beforeafter');
      expect(sanitizeText(`before${attack}after`, { keepSgr: true })).toBe('beforeafter');
    });
  }

  it('keeps the text of a hyperlink, not the link', () => {
    expect(sanitizeText('\x1b]8;;https://x.example\x1b\\click\x1b]8;;\x1b\\')).toBe('click');
  });

  it('drops SGR in text mode and keeps plain SGR in output mode, reset at the line end', () => {
    expect(sanitizeText('\x1b[31mred\x1b[0m ok')).toBe('red ok');
    expect(sanitizeText('\x1b[31mred\x1b[0m ok', { keepSgr: true })).toBe('\x1b[31mred\x1b[0m ok');
    expect(sanitizeText('\x1b[1;31mA\nB\x1b[m\n', { keepSgr: true })).toBe('\x1b[1;31mA\x1b[0m\n\x1b[1;31mB\x1b[0m\n');
    // Left open at the end: closed.
    expect(sanitizeText('\x1b[32mgreen', { keepSgr: true })).toBe('\x1b[32mgreen\x1b[0m');
  });

  it('removes conceal from SGR but keeps colour index 8', () => {
    expect(filterSgr('8')).toBe('');
    expect(filterSgr('1;8;31')).toBe('1;31');
    expect(filterSgr('38;5;8')).toBe('38;5;8');
    expect(filterSgr('48;2;8;8;8;8')).toBe('48;2;8;8;8');
    expect(sanitizeText('\x1b[8mhidden', { keepSgr: true })).toBe('hidden');
  });

  it('never keeps private-mode or 8-bit SGR lookalikes', () => {
    expect(sanitizeText('\x1b[?31mx\x1b[>4;2mz\x9b31my', { keepSgr: true })).toBe('xzy');
  });

  it('ends an unterminated OSC at the newline instead of hiding the rest', () => {
    expect(sanitizeText('a\x1b]0;title without end\nvisible line\n')).toBe('a\nvisible line\n');
  });

  it('drops a sequence aborted by a control character and keeps that character', () => {
    expect(sanitizeText('a\x1b[12\nb')).toBe('a\nb');
  });

  it('ignores an endless CSI parameter list without holding memory', () => {
    const z = new TerminalSanitizer();
    expect(z.push(`x\x1b[${'1;'.repeat(10_000)}`)).toBe('x');
    expect(z.push('Hy')).toBe('y');
  });
});

describe('TerminalSanitizer: controls', () => {
  it('shows C0, DEL and C1 controls as \\xHH and keeps newline and tab', () => {
    expect(sanitizeText('a\x07b\x08c\x00d\x7fe\x85f\tg\nh')).toBe('a\\x07b\\x08c\\x00d\\x7fe\\x85f\tg\nh');
  });

  it('shows an ESC that starts no sequence', () => {
    expect(sanitizeText('a\x1b\nb')).toBe('a\\x1b\nb');
    expect(sanitizeText('end\x1b')).toBe('end\\x1b');
    expect(sanitizeText('\x1b\x1b[2Jx')).toBe('\\x1bx');
  });

  it('never lets a carriage return overwrite a line', () => {
    expect(sanitizeText('safe\r\nnext')).toBe('safe\nnext');
    expect(sanitizeText('rm -rf ~\rls')).toBe('rm -rf ~\nls');
    expect(sanitizeText('10%\r50%\r100%\r')).toBe('10%\n50%\n100%\n');
    expect(sanitizeText('a\r\r\nb')).toBe('a\nb');
  });

  it('shows bidi overrides and isolates in command output, and keeps other right-to-left text', () => {
    // Found by the fault lane 7-trust-boundary: `ls` of a file named "x\u202etxt.exe" read as "xexe.txt".
    expect(sanitizeText('x\u202etxt.exe\n\u2066a\u2069 \u05e9\u05dc\u05d5\u05dd', { keepSgr: true })).toBe(
      'x\\u202etxt.exe\n\\u2066a\\u2069 \u05e9\u05dc\u05d5\u05dd',
    );
  });

  it('sanitizeLine flattens to one line', () => {
    expect(sanitizeLine('server said:\n\x1b[2Jbad\tthing\r')).toBe('server said: bad thing ');
  });
});

describe('TerminalSanitizer: streaming', () => {
  it('recognises sequences split across chunks', () => {
    expect(streamed(['a\x1b', '[2', 'J', 'b'])).toBe('ab');
    expect(streamed(['a\x1b]0;ti', 'tle\x1b', '\\b'])).toBe('ab');
    expect(streamed(['x\r', '\ny'])).toBe('x\ny');
    expect(streamed(['\x1b[3', '1mred'], { keepSgr: true })).toBe('\x1b[31mred\x1b[0m');
  });

  it('holds only what it must: plain text comes out at once', () => {
    const z = new TerminalSanitizer();
    expect(z.push('hello ')).toBe('hello ');
    expect(z.push('world\x1b[')).toBe('world');
    expect(z.push('1mX')).toBe('X');
  });
});

describe('TerminalSanitizer: folding', () => {
  it('folds long lines at the width and keeps short ones', () => {
    expect(sanitizeText('abcdefghij', { foldWidth: 4 })).toBe('abcd\nefgh\nij');
    expect(sanitizeText('ab\ncd', { foldWidth: 4 })).toBe('ab\ncd');
    expect(streamed(['ab', 'cdef', 'g'], { foldWidth: 4 })).toBe('abcd\nefg');
  });

  it('counts wide characters as two cells and never splits a control picture', () => {
    expect(sanitizeText('漢字漢字漢', { foldWidth: 4 })).toBe('漢字\n漢字\n漢');
    expect(sanitizeText('abc\x07', { foldWidth: 6 })).toBe('abc\n\\x07');
  });

  it('reapplies colours on the folded part', () => {
    expect(sanitizeText('\x1b[31mabcdef', { keepSgr: true, foldWidth: 4 })).toBe('\x1b[31mabcd\x1b[0m\n\x1b[31mef\x1b[0m');
  });

  it('folds a megabyte without newlines quickly into bounded lines', () => {
    const out = sanitizeText('x'.repeat(1_000_000), { foldWidth: 100 });
    const lines = out.split('\n');
    expect(lines).toHaveLength(10_000);
    expect(lines.every((l) => l.length === 100)).toBe(true);
  });
});

describe('showControls', () => {
  it('shows every control, newline and tab included, and bidi overrides', () => {
    expect(showControls('echo hi\r\x1b[2Kls # harmless')).toBe('echo hi\\x0d\\x1b[2Kls # harmless');
    expect(showControls('a\nb\tc')).toBe('a\\x0ab\\x09c');
    expect(showControls('x\u202eexe.txt')).toBe('x\\u202eexe.txt');
    expect(showControls('\x1b', (e) => `[${e}]`)).toBe('[\\x1b]');
  });
});

// ---- properties ---------------------------------------------------------------------------

/** Strings rich in the bytes that matter: escapes, controls, sequence pieces, wide text. */
const nasty = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        ...Object.values(ATTACKS),
        '\x1b',
        '\x1b[',
        '\x1b]',
        '\x1b\\',
        '\x07',
        '\r',
        '\n',
        '\t',
        '\x9b',
        '\x9c',
        '\x9d',
        '\x7f',
        '\x00',
        ';',
        'm',
        '[',
        '31',
        '漢',
        '😀',
        '\u0301',
      ),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.string({ maxLength: 12 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

/** Splits a string at random points. */
const chunked = nasty.chain((s) =>
  fc.uniqueArray(fc.nat({ max: s.length }), { maxLength: 6 }).map((cuts) => {
    const points = [...cuts].sort((a, b) => a - b);
    const chunks: string[] = [];
    let from = 0;
    for (const p of points) {
      chunks.push(s.slice(from, p));
      from = p;
    }
    chunks.push(s.slice(from));
    return { s, chunks };
  }),
);

const modes = fc.record({ keepSgr: fc.boolean(), foldWidth: fc.constantFrom(0, 4, 7, 80) });

describe('TerminalSanitizer properties', () => {
  it('output never holds an escape (but plain SGR in output mode) or another control', () => {
    fc.assert(
      fc.property(chunked, modes, ({ chunks }, opts) => {
        const out = streamed(chunks, opts);
        expect(onlySafe(out, opts.keepSgr)).toBe(true);
        if (!opts.keepSgr) expect(out).not.toContain('\x1b');
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('chunking never changes the output', () => {
    fc.assert(
      fc.property(chunked, modes, ({ s, chunks }, opts) => {
        expect(streamed(chunks, opts)).toBe(sanitizeText(s, opts));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('plain printable text passes unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (s) => {
        const plain = s.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
        expect(sanitizeText(plain)).toBe(plain);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('folded lines never exceed the width', () => {
    fc.assert(
      fc.property(nasty, fc.integer({ min: 8, max: 40 }), (s, width) => {
        const out = sanitizeText(s.replace(/\t/g, ' '), { foldWidth: width, keepSgr: true });
        for (const line of out.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(width);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('the sanitiser is idempotent on its own output', () => {
    fc.assert(
      fc.property(nasty, fc.boolean(), (s, keepSgr) => {
        const once = sanitizeText(s, { keepSgr });
        expect(sanitizeText(once, { keepSgr })).toBe(once);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('showControls leaves no control or bidi override', () => {
    fc.assert(
      fc.property(nasty, (s) => {
        const shown = showControls(s);
        expect(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(shown)).toBe(false);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('text that reads differently from its bytes (issue 23)', () => {
  it('one-line text shows bidi overrides and zero-width characters as escapes', () => {
    expect(sanitizeLine('rm -rf x\u202e txt.exe\u200b\u2066\u061c')).toBe('rm -rf x\\u202e txt.exe\\u200b\\u2066\\u061c');
  });

  it('command output keeps its colours but never a foreground equal to its background', () => {
    const keep = { keepSgr: true };
    expect(sanitizeText('\x1b[30;40mhidden\x1b[0m', keep)).toBe('hidden');
    expect(sanitizeText('\x1b[31m\x1b[41mhidden', keep)).toBe('\x1b[31mhidden\x1b[0m');
    expect(sanitizeText('\x1b[38;5;9m\x1b[48;5;9mhidden', keep)).toBe('\x1b[38;5;9mhidden\x1b[0m');
    expect(sanitizeText('\x1b[38;2;1;2;3;48;2;1;2;3mhidden', keep)).toBe('hidden');
    expect(sanitizeText('\x1b[32m\x1b[41mshown', keep)).toBe('\x1b[32m\x1b[41mshown\x1b[0m');
    expect(sanitizeText('\x1b[31m\x1b[39;41mshown', keep)).toBe('\x1b[31m\x1b[39;41mshown\x1b[0m');
  });

  it('black (or near-black) text on black or on the default background is hidden however it is written', () => {
    const keep = { keepSgr: true };
    for (const fg of ['30', '90', '38;5;0', '38;2;0;0;0', '38;5;16', '38;5;232']) {
      expect(sanitizeText(`\x1b[${fg}mhidden`, keep), fg).toBe('hidden');
      expect(sanitizeText(`\x1b[${fg};40mhidden`, keep), fg).toBe('hidden');
      expect(sanitizeText(`\x1b[40m\x1b[${fg}mhidden`, keep), fg).toBe('\x1b[40mhidden\x1b[0m');
    }
    // rgb and indexed spellings of one colour are one colour.
    expect(sanitizeText('\x1b[31;48;2;170;0;0mhidden', keep)).toBe('hidden');
    expect(sanitizeText('\x1b[38;5;196;48;2;255;0;0mhidden', keep)).toBe('hidden');
    expect(sameColour('i1', 'rgb(170,0,0)')).toBe(true);
    expect(sameColour('i21', 'rgb(0,0,255)')).toBe(true);
    // Visible pairs stay.
    expect(sanitizeText('\x1b[34mshown', keep)).toBe('\x1b[34mshown\x1b[0m');
    expect(sanitizeText('\x1b[30;47mshown', keep)).toBe('\x1b[30;47mshown\x1b[0m');
    expect(sameColour(undefined, 'i0')).toBe(false);
  });
});
