import { describe, expect, it } from 'vitest';
import { formatPatch, parseBuiltinOperation, parsePatch, PatchError } from './index.ts';

const env = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

function parseFailure(text: string): PatchError {
  try {
    parsePatch(text);
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  throw new Error('expected a parse error');
}

describe('parsePatch', () => {
  it('reads add, delete, update and move sections in order', () => {
    const ops = parsePatch(
      env('*** Add File: a.txt', '+one', '+', '+three', '*** Delete File: b.txt', '*** Update File: c.txt', '*** Move to: d/c.txt', ' ctx', '-old', '+new'),
    );
    expect(ops).toEqual([
      { type: 'add', path: 'a.txt', lines: ['one', '', 'three'] },
      { type: 'delete', path: 'b.txt' },
      {
        type: 'update',
        path: 'c.txt',
        moveTo: 'd/c.txt',
        hunks: [
          {
            anchors: [],
            endOfFile: false,
            patchLine: 9,
            lines: [
              { kind: 'context', text: 'ctx' },
              { kind: 'delete', text: 'old' },
              { kind: 'insert', text: 'new' },
            ],
          },
        ],
      },
    ]);
  });

  it('splits hunks at @@ lines, stacks consecutive anchors and closes a hunk at *** End of File', () => {
    const [op] = parsePatch(env('*** Update File: f.py', '@@ class A:', '@@     def m(self):', '-  x', '+  y', '@@', ' z', '+w', '*** End of File'));
    if (op?.type !== 'update') throw new Error('update expected');
    expect(op.hunks.map((h) => [h.anchors, h.lines.length, h.endOfFile, h.patchLine])).toEqual([
      [['class A:', '    def m(self):'], 2, false, 3],
      [[], 2, true, 7],
    ]);
  });

  it('ignores a unified-diff range header as an anchor', () => {
    const [op] = parsePatch(env('*** Update File: f', '@@ -1,3 +1,4 @@', '-a', '+b'));
    expect(op?.type === 'update' && op.hunks[0]?.anchors).toEqual([]);
  });

  it('takes an empty line inside a hunk as an empty context line and drops trailing ones', () => {
    const [op] = parsePatch(env('*** Update File: f', ' a', '', '-b', '', ''));
    expect(op?.type === 'update' && op.hunks[0]?.lines).toEqual([
      { kind: 'context', text: 'a' },
      { kind: 'context', text: '' },
      { kind: 'delete', text: 'b' },
    ]);
  });

  it('tolerates CRLF, padded markers, blank lines around sections and a heredoc wrapper', () => {
    const text = `<<'EOF'\r\n  *** Begin Patch  \r\n\r\n*** Add File: x\r\n+1\r\n\r\n   *** Delete File: y\r\n*** End Patch \r\nEOF\r\n`;
    expect(parsePatch(text)).toEqual([
      { type: 'add', path: 'x', lines: ['1'] },
      { type: 'delete', path: 'y' },
    ]);
  });

  it('keeps a context line that looks like a marker (leading space) as context', () => {
    const [op] = parsePatch(env('*** Update File: notes.md', ' *** End Patch', ' *** Update File: other', '-x', '+y'));
    expect(op?.type === 'update' && op.hunks[0]?.lines.map((l) => l.text)).toEqual(['*** End Patch', '*** Update File: other', 'x', 'y']);
  });

  it('round-trips through formatPatch', () => {
    const ops = parsePatch(env('*** Add File: a', '+x', '*** Update File: b', '@@ fn', ' c', '-d', '+e', '@@', '+f', '*** End of File', '*** Delete File: g'));
    expect(parsePatch(formatPatch(ops)).map((o) => JSON.stringify(o).replace(/"patchLine":\d+/g, ''))).toEqual(
      ops.map((o) => JSON.stringify(o).replace(/"patchLine":\d+/g, '')),
    );
  });

  it.each([
    ['', 'the patch is empty'],
    ['*** Update File: a\n-x\n*** End Patch', "line 1: the patch must start with '*** Begin Patch'"],
    ['*** Begin Patch\n*** Add File: a\n+x', "line 3: the patch must end with '*** End Patch'"],
    [env(), 'the patch contains no file operations'],
    [env('hello'), 'line 2: expected a file section header'],
    [env('*** Copy File: a'), 'line 2: expected a file section header'],
    [env('*** Add File: '), 'line 2: *** Add File: needs a file path'],
    [env('*** Add File: a', 'no plus'), 'line 3: "no plus" in the new file a: every line of an added file starts with \'+\''],
    [env('*** Delete File: a', '-x'), 'line 3: a *** Delete File: section has no body'],
    [env('*** Update File: a'), 'line 2: the *** Update File: section for a is empty'],
    [env('*** Update File: a', '-x', 'x'), 'line 4: "x" in the update of a is not a diff line'],
    [env('*** Update File: a', '-x', '*** Move to: b'), "line 4: '*** Move to:' must directly follow"],
    [env('*** Update File: a', '-x', '*** Frob'), 'line 4: unknown marker "*** Frob"'],
    [env('*** Update File: a', '@@ f', '@@ g'), 'line 3: the hunk in the update of a has no lines'],
    [env('*** Update File: a', '-x', '*** End of File', '+y'), "line 5: only '@@' or a new file section may follow '*** End of File' (line 4)"],
    [env('*** Add File: a', '+x', '*** End Patch', '*** Add File: b', '+y'), 'line 4: "*** End Patch" may appear only once'],
  ])('rejects %j with a message naming the line', (text, message) => {
    const err = parseFailure(text);
    expect(err.kind).toBe('parse');
    expect(err.message).toContain(message);
  });
});

describe('parseBuiltinOperation', () => {
  it('reads a create_file diff: every line starts with +, each ends with a newline in the file', () => {
    expect(parseBuiltinOperation({ type: 'create_file', path: 'a.md', diff: '+# Title\n+\n+text\n' })).toEqual({
      type: 'add',
      path: 'a.md',
      lines: ['# Title', '', 'text'],
    });
  });

  it('reads an update_file diff with anchors and no @@ before the first hunk', () => {
    const op = parseBuiltinOperation({ type: 'update_file', path: 'x.ts', diff: ' a\n-b\n+c\n@@ function f() {\n-  return 1;\n+  return 2;\n' });
    expect(op.type === 'update' && op.hunks.map((h) => h.anchors)).toEqual([[], ['function f() {']]);
  });

  it('tolerates a trailing *** End Patch, and keeps a final one-space context line', () => {
    const op = parseBuiltinOperation({ type: 'update_file', path: 'x', diff: '+a\n \n*** End Patch\n' });
    expect(op.type === 'update' && op.hunks[0]?.lines).toEqual([
      { kind: 'insert', text: 'a' },
      { kind: 'context', text: '' },
    ]);
  });

  it('reads delete_file without a diff', () => {
    expect(parseBuiltinOperation({ type: 'delete_file', path: ' old.txt ' })).toEqual({ type: 'delete', path: 'old.txt' });
  });

  it.each([
    [{ type: 'create_file' as const, path: 'a', diff: 'no plus\n' }, 'line 1: "no plus" in the new file a'],
    [{ type: 'update_file' as const, path: 'a', diff: '' }, 'the update_file diff for a is empty'],
    [
      { type: 'update_file' as const, path: 'a', diff: '*** Update File: a\n-x\n' },
      'line 1: the diff of a update_file operation has no envelope or section headers',
    ],
    [{ type: 'delete_file' as const, path: '  ' }, 'the delete_file operation has no path'],
  ])('rejects %j', (op, message) => {
    expect(() => parseBuiltinOperation(op)).toThrow(message);
  });
});
