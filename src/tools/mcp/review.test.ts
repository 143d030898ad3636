// Words in the approval prompt: shown exactly, nothing on the line can act on a terminal or
// read differently from its bytes.
import { describe, expect, it } from 'vitest';
import { shownWord } from '../../lib/text.ts';
import { specVariables } from './review.ts';
import type { HttpServerSpec } from './spec.ts';

describe('shownWord', () => {
  it('leaves plain words alone and quotes the rest with controls, bidi overrides and zero-width characters visible', () => {
    expect(shownWord('--port=8080')).toBe('--port=8080');
    expect(shownWord('two words')).toBe('"two words"');
    expect(shownWord('')).toBe('""');
    expect(shownWord('a\x1b[2Kb\r')).toBe('"a\\u001b[2Kb\\r"');
    expect(shownWord('evil\u202eexe.txt')).toBe('"evil\\u202eexe.txt"');
    expect(shownWord('zero\u200bwidth')).toBe('"zero\\u200bwidth"');
    expect(shownWord('c1\u009b31m')).toBe('"c1\\u009b31m"');
    expect(shownWord('del\x7f')).toBe('"del\\u007f"');
  });

  it('lists every ${VAR} once, defaults included by name', () => {
    const spec: HttpServerSpec = {
      name: 'w',
      file: '/p/.mcp.json',
      scope: 'project',
      transport: 'http',
      url: 'https://${HOST:-x}/${HOST}',
      headers: { A: '${T} ${U:-}' },
    };
    expect(specVariables(spec)).toEqual(['HOST', 'T', 'U']);
  });
});
