import { describe, expect, it } from 'vitest';
import { applyHunks, diffLines, joinLines, parseBuiltinOperation, preImage, refineEdits, splitLines, unifiedDiff } from './index.ts';
import type { FileOperation, Hunk } from './index.ts';
import { foldLookalikes, similarity } from './match.ts';

/** The hunks of a headerless update diff. */
function hunks(diff: string): Hunk[] {
  const op = parseBuiltinOperation({ type: 'update_file', path: 'f', diff });
  if (op.type !== 'update') throw new Error('update expected');
  return op.hunks;
}

const apply = (text: string, diff: string): string => applyHunks(text, hunks(diff), { path: 'f.txt' }).text;

function failure(text: string, diff: string): string {
  try {
    apply(text, diff);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('expected the hunks not to apply');
}

describe('splitLines / joinLines', () => {
  it.each(['', 'a', 'a\n', 'a\r\nb\r\n', 'a\nb\r\nc', '\uFEFFx\n', 'lone\rcr\n', '\n\n'])('round-trips %j byte for byte', (text) => {
    const t = splitLines(text);
    expect(joinLines(t.lines, t.eols, t)).toBe(text);
  });

  it('chooses CRLF for new lines only when most lines use it', () => {
    expect(splitLines('a\r\nb\r\nc\n').eol).toBe('\r\n');
    expect(splitLines('a\r\nb\nc\n').eol).toBe('\n');
    expect(splitLines('a').finalNewline).toBe(false);
    expect(splitLines('').finalNewline).toBe(true);
  });
});

describe('applyHunks: placement', () => {
  it('replaces, inserts and deletes around context', () => {
    expect(apply('a\nb\nc\nd\n', ' a\n-b\n+B\n+B2\n c\n-d\n')).toBe('a\nB\nB2\nc\n');
  });

  it('matches exactly first, then ignoring trailing whitespace, then surrounding whitespace, then look-alikes', () => {
    expect(apply('x  \ny\n', ' x\n-y\n+z\n')).toBe('x  \nz\n');
    expect(apply('\t\tx\ny\n', ' x\n-y\n+z\n')).toBe('\t\tx\nz\n');
    expect(apply('a \u2013 b\nit\u2019s\n', "-a - b\n+a to b\n it's\n")).toBe('a to b\nit\u2019s\n');
    // An exact match later in the file wins over a loose match earlier.
    expect(apply('x \nq\nx\nq\n', ' x\n-q\n+Q\n')).toBe('x \nq\nx\nQ\n');
  });

  it('loosens the patch side too: trailing spaces in the hunk match a clean file', () => {
    expect(apply('x\ny\n', ' x  \n-y\t\n+z\n')).toBe('x\nz\n');
  });

  it('keeps the file’s own context lines when they matched loosely', () => {
    expect(apply('  keep  \nold\n', ' keep\n-old\n+new\n')).toBe('  keep  \nnew\n');
  });

  it('rejects an ambiguous hunk and accepts it once an anchor narrows it', () => {
    const text = 'def a():\n    return 1\ndef b():\n    return 1\n';
    expect(failure(text, '-    return 1\n+    return 2\n')).toContain('matches more than once (at lines 2 and 4)');
    expect(apply(text, '@@ def b():\n-    return 1\n+    return 2\n')).toBe('def a():\n    return 1\ndef b():\n    return 2\n');
  });

  it('applies stacked anchors in order', () => {
    const text = 'class A:\n  def m():\n    pass\nclass B:\n  def m():\n    pass\n';
    expect(apply(text, '@@ class B:\n@@   def m():\n-    pass\n+    return 1\n')).toBe('class A:\n  def m():\n    pass\nclass B:\n  def m():\n    return 1\n');
    expect(failure(text, '@@ class B:\n@@   def n():\n-    pass\n+    x\n')).toContain('Its anchor "@@   def n():" was not found after line 4');
  });

  it('accepts an anchor that shortens the line it names', () => {
    expect(apply('function f(a, b) {\n  return a;\n}\n', '@@ function f(\n-  return a;\n+  return b;\n')).toBe('function f(a, b) {\n  return b;\n}\n');
  });

  it('places a later hunk naming the same function as the previous one', () => {
    const text = 'def f():\n    a = 1\n    b = 2\n    c = 3\n';
    expect(apply(text, '@@ def f():\n-    a = 1\n+    a = 10\n@@ def f():\n-    c = 3\n+    c = 30\n')).toBe('def f():\n    a = 10\n    b = 2\n    c = 30\n');
  });

  it('puts a hunk of only added lines after its anchor, or at the end without one', () => {
    expect(apply('[a]\nx\n[b]\ny\n', '@@ [b]\n+z\n')).toBe('[a]\nx\n[b]\nz\ny\n');
    expect(apply('x\ny\n', '+z\n')).toBe('x\ny\nz\n');
  });

  it('anchors an *** End of File hunk at the end, allowing trailing blank lines after it', () => {
    expect(apply('end\nmid\nend\n', ' mid\n-end\n+fin\n*** End of File\n')).toBe('end\nmid\nfin\n');
    expect(apply('a\nb\n\n\n', ' b\n+c\n*** End of File\n')).toBe('a\nb\nc\n\n\n');
    expect(failure('a\nb\nc\n', '-a\n+A\n*** End of File\n')).toContain("marked '*** End of File' but its old lines are not the last lines");
  });

  it('retries without trailing blank context lines the model added', () => {
    expect(apply('a\nb\nc\n', ' a\n-b\n+B\n \n')).toBe('a\nB\nc\n');
  });

  it('applies hunks in order and never before the previous one', () => {
    expect(failure('a\nb\n', '-b\n+B\n@@\n-a\n+A\n')).toContain('hunk 2 of 2');
  });
});

describe('applyHunks: preserving the file', () => {
  it('keeps CRLF on every line, new ones included', () => {
    expect(apply('a\r\nb\r\n', ' a\n+x\n-b\n+y\n')).toBe('a\r\nx\r\ny\r\n');
  });

  it('keeps untouched lines’ endings in a mixed file; new lines take the dominant one', () => {
    expect(apply('a\r\nb\nc\r\nd\r\n', ' c\n-d\n+D\n')).toBe('a\r\nb\nc\r\nD\r\n');
  });

  it('keeps a byte-order mark, and matches the first line behind it', () => {
    expect(apply('\uFEFFa\nb\n', '-a\n+A\n')).toBe('\uFEFFA\nb\n');
  });

  it('keeps a missing final newline, also when lines are appended', () => {
    expect(apply('a\nb', '-b\n+c\n')).toBe('a\nc');
    expect(apply('a\nb', ' b\n+c\n*** End of File\n')).toBe('a\nb\nc');
    expect(apply('a\nb\n', '-a\n-b\n')).toBe('');
  });

  it('reports the edits with old and new positions', () => {
    const r = applyHunks('a\nb\nc\n', hunks(' a\n-b\n+B\n c\n+d\n'), { path: 'f' });
    expect(r.edits).toEqual([
      { oldStart: 1, oldLines: ['b'], newStart: 1, newLines: ['B'] },
      { oldStart: 3, oldLines: [], newStart: 3, newLines: ['d'] },
    ]);
  });
});

describe('applyHunks: messages for the model', () => {
  it('names the file, the hunk, its first lines and the closest partial match', () => {
    const message = failure('one\ntwo\nthree\nfour\n', ' one\n two\n-tree\n+3\n');
    expect(message).toContain('f.txt: hunk 1 of 1 (patch line 1):\n     one\n     two\n    -tree\n    +3');
    expect(message).toContain('Closest: lines 1-2 match its first 2 of 3 old lines, then line 3 differs:\n  expected: "tree"\n  found:    "three"');
  });

  it('names the most similar line when no line matches', () => {
    expect(failure('const answer = 40;\nother\n', '-const answer = 41;\n+x\n')).toContain(
      'the line most like "const answer = 41;" is line 1: "const answer = 40;"',
    );
  });

  it('says when nothing resembles the hunk', () => {
    expect(failure('zzz\n', '-qqqqqq\n+x\n')).toContain('No line of the file resembles it.');
  });
});

describe('preImage (the reverse check)', () => {
  const op = (diff: string): Extract<FileOperation, { type: 'update' }> => ({ type: 'update', path: 'f', moveTo: null, hunks: hunks(diff) });

  it('recovers the text before an applied update', () => {
    expect(preImage('a\nB\nc\nd\n', op(' a\n-b\n+B\n c\n+d\n'), 'f')).toBe('a\nb\nc\n');
  });

  it('is null when the update is not applied', () => {
    expect(preImage('a\nb\nc\n', op(' a\n-b\n+B\n c\n'), 'f')).toBeNull();
  });

  it('recovers a removal that had no context when it directly follows the previous hunk', () => {
    expect(preImage('x\nz\n', op(' x\n-y\n@@\n-q\n'), 'f')).toBe('x\ny\nq\nz\n');
  });
});

describe('diffs', () => {
  it('folds look-alikes and scores similarity', () => {
    expect(foldLookalikes('\u201ca\u201d \u2014 \u2018b\u2019\u00a0c')).toBe('"a" - \'b\' c');
    expect(similarity('abcdef', 'abcdeg')).toBeGreaterThan(0.7);
    expect(similarity('abc', 'xyz')).toBe(0);
  });

  it('refines a re-typed unchanged line out of an edit', () => {
    expect(refineEdits([{ oldStart: 4, oldLines: ['a', 'b'], newStart: 4, newLines: ['a', 'c'] }])).toEqual([
      { oldStart: 5, oldLines: ['b'], newStart: 5, newLines: ['c'] },
    ]);
  });

  it('renders a unified diff with merged hunks and diff(1) ranges', () => {
    const old = Array.from({ length: 20 }, (_, i) => `l${i + 1}`);
    const now = [...old];
    now[1] = 'L2';
    now.splice(18, 0, 'new');
    const text = unifiedDiff(old, diffLines(old, now), { oldPath: 'a.txt', newPath: 'a.txt' });
    expect(text).toBe(
      [
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,5 +1,5 @@',
        ' l1',
        '-l2',
        '+L2',
        ' l3',
        ' l4',
        ' l5',
        '@@ -16,5 +16,6 @@',
        ' l16',
        ' l17',
        ' l18',
        '+new',
        ' l19',
        ' l20',
        '',
      ].join('\n'),
    );
    expect(unifiedDiff([], diffLines([], ['x']), { oldPath: null, newPath: 'n' })).toBe('--- /dev/null\n+++ b/n\n@@ -0,0 +1,1 @@\n+x\n');
  });
});
