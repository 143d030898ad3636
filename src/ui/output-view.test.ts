import { describe, expect, it } from 'vitest';
import { OutputView } from './output-view.ts';

function view(opts: Partial<ConstructorParameters<typeof OutputView>[0]> = {}) {
  let text = '';
  const v = new OutputView({
    write: (s) => {
      text += s;
    },
    keepColors: false,
    width: 10,
    maxRows: 3,
    ...opts,
  });
  return { v, text: () => text };
}

describe('OutputView', () => {
  it('indents rows, continues a row across chunks, and ends the last one', () => {
    const o = view();
    o.v.push('ab');
    o.v.push('c\nd');
    expect(o.v.end()).toBe(0);
    expect(o.text()).toBe('  abc\n  d\n');
  });

  it('folds a line without newlines and counts what it leaves out', () => {
    const o = view();
    for (let i = 0; i < 10; i++) o.v.push('x'.repeat(7));
    expect(o.v.end()).toBe(4);
    expect(o.text()).toBe('  xxxxxxxxxx\n  xxxxxxxxxx\n  xxxxxxxxxx\n');
  });

  it('keeps an escape sequence split across chunks of one stream, whatever the other wrote', () => {
    const o = view({ maxRows: 10, width: 40 });
    o.v.push('a\x1b[2', 'stdout');
    o.v.push('err\n', 'stderr');
    o.v.push('Jb\n', 'stdout');
    o.v.end();
    expect(o.text()).toBe('  aerr\n  b\n');
  });

  it('keeps colours when asked and closes them before the end', () => {
    const o = view({ keepColors: true, width: 40 });
    o.v.push('\x1b[31mred');
    o.v.end();
    expect(o.text()).toBe('  \x1b[31mred\x1b[0m\x1b[0m\n');
  });
});
