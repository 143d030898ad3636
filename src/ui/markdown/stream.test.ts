import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringWidth } from '../width.ts';
import { decodeEntities, fitColumns, wrapStyled } from './render.ts';
import { createMarkdownStream, renderMarkdown, StreamingMarkdown } from './stream.ts';

const SEED = Number(process.env.AGENTX_TEST_SEED ?? 20_250_614);
console.log(`markdown properties: seed ${SEED} (replay with AGENTX_TEST_SEED=${SEED})`);

const strip = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

function streamAll(chunks: string[], columns = 80): { out: string; steps: string[] } {
  const md = new StreamingMarkdown(() => columns);
  const steps = chunks.map((c) => md.push(c));
  const out = steps.join('') + md.end();
  return { out, steps };
}

const DOC = [
  '# Title',
  '',
  'A paragraph with **bold**, *italic*, `code`, ~~gone~~ and a [link](https://example.com).',
  '',
  '- one',
  '- two',
  '  - nested',
  '- [x] done',
  '',
  '1. first',
  '2. second',
  '',
  '> quoted',
  '> text',
  '',
  '| Name | Size |',
  '|:-----|-----:|',
  '| a | 1 |',
  '| bb | 22 |',
  '',
  '```python',
  'def f(x):',
  '    return "s"  # c',
  '```',
  '',
  '---',
  '',
  'Last paragraph &amp; done.',
].join('\n');

describe('renderMarkdown', () => {
  const rows = renderMarkdown(DOC, 120);
  const text = strip(rows.join('\n'));

  it('renders headings, emphasis, code, links, lists, quotes, tables and rules without their markup', () => {
    expect(text).toContain('Title');
    expect(text).not.toMatch(/\*\*|~~|^#/m);
    expect(text).toContain('A paragraph with bold, italic, code, gone and a link (https://example.com).');
    expect(text).toMatch(/• one\n• two\n {2}◦ nested\n• ☑ done/);
    expect(text).toMatch(/1\. first\n2\. second/);
    expect(text).toMatch(/│ quoted\n│ text/);
    expect(text).toMatch(/┌─+┬─+┐\n│ Name │ Size │/);
    expect(text).toContain('│ bb   │   22 │');
    expect(text).toContain('  def f(x):');
    expect(text).toContain('Last paragraph & done.');
  });

  it('styles: bold, italic, inline code, heading colour, syntax colours', () => {
    const styled = rows.join('\n');
    expect(styled).toContain('\x1b[1mbold\x1b[22m');
    expect(styled).toContain('\x1b[3mitalic\x1b[23m');
    expect(styled).toContain('\x1b[36mcode\x1b[39m');
    expect(styled).toContain('\x1b[35mdef\x1b[39m');
    expect(styled).toContain('\x1b[32m"s"\x1b[39m');
  });

  it('wraps paragraphs to the width, and closes styles at each row end', () => {
    const long = renderMarkdown(`**${'word '.repeat(40)}end**`, 30);
    expect(long.length).toBeGreaterThan(5);
    for (const row of long) expect(stringWidth(row)).toBeLessThanOrEqual(30);
    expect(long[1]?.startsWith('\x1b[1m')).toBe(true);
  });

  it('never decodes an entity into a control character', () => {
    expect(decodeEntities('&#27;[2J &#x1b; &#65; &lt;b&gt; &bogus;')).toBe('&#27;[2J &#x1b; A <b> &bogus;');
  });

  it('shares table room among columns, the widest giving way first', () => {
    expect(fitColumns([5, 50, 10], 40)).toEqual([5, 25, 10]);
    expect(fitColumns([5, 6], 40)).toEqual([5, 6]);
  });

  it('wrapStyled reopens an open style on the next row', () => {
    expect(wrapStyled('\x1b[4maa bb\x1b[24m', 2)).toEqual(['\x1b[4maa\x1b[0m', '\x1b[4mbb\x1b[24m']);
  });
});

describe('StreamingMarkdown', () => {
  it('shows finished lines while the answer streams, a list one line behind', () => {
    const md = new StreamingMarkdown(() => 80);
    expect(md.push('Steps:\n\n- first')).toContain('Steps:');
    expect(strip(md.push(' step\n- second\n'))).toContain('• first step');
    expect(strip(md.end())).toBe('• second\n');
  });

  it('shows each line of a fenced code block once it is complete', () => {
    const md = new StreamingMarkdown(() => 80);
    expect(md.push('```js\nconst a = 1;\n')).toContain('const');
    expect(strip(md.push('const b = 2;\nconst c'))).toBe('  const b = 2;\n');
    expect(strip(md.push(' = 3;\n```\n'))).toBe('  const c = 3;\n');
    expect(md.end()).toBe('');
  });

  it('holds a table until its last row', () => {
    const md = new StreamingMarkdown(() => 80);
    expect(md.push('| a | b |\n|---|---|\n| 1 | 2 |\n')).toBe('');
    expect(strip(md.push('\n'))).toContain('│ 1 │ 2 │');
  });

  it('renders the tail without a final newline at the end', () => {
    const { out } = streamAll(['plain ', '**end**']);
    expect(out).toBe('plain \x1b[1mend\x1b[22m\n');
  });

  it('streamed in any pieces, a document renders as it does whole', () => {
    const whole = streamAll([DOC]).out;
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: DOC.length }), { maxLength: 30 }), (cuts) => {
        const points = [0, ...[...cuts].sort((a, b) => a - b), DOC.length];
        const chunks = points.slice(1).map((p, i) => DOC.slice(points[i], p));
        expect(streamAll(chunks).out).toBe(whole);
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('renders a long code block in linear time (batched re-rendering)', () => {
    const code = Array.from({ length: 3000 }, (_, i) => `let v${i} = ${i}; // line`).join('\n');
    const lines = `\`\`\`ts\n${code}\n\`\`\`\n`.match(/[^\n]*\n/g) ?? [];
    const { out } = streamAll(lines);
    expect(
      strip(out)
        .split('\n')
        .filter((l) => l.startsWith('  let v')),
    ).toHaveLength(3000);
  });

  it('previews the unfinished line on one row and replaces it with the rendered line', () => {
    const md = createMarkdownStream({ columns: () => 20 });
    expect(md.push('Some **bo')).toBe('\x1b[2mSome **bo\x1b[22m');
    expect(md.push('ld** text')).toBe('\r\x1b[K\x1b[2mSome **bold** text\x1b[22m');
    // Longer than a row: only its end shows, so erasing one row is always enough.
    expect(md.push(' that goes on')).toBe('\r\x1b[K\x1b[2m…text that goes on\x1b[22m');
    expect(md.push('\n')).toBe('\r\x1b[K');
    expect(md.end()).toBe('Some \x1b[1mbold\x1b[22m text that\ngoes on\n');
  });
});
