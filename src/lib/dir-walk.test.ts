import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openParent, procFdUsable, tempNameFor, UnsafePathError, withParent } from './dir-walk.ts';

let base: string;
let ws: string;
let outside: string;

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-dirwalk-'));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(ws, 'a', 'b'), { recursive: true });
  fs.mkdirSync(outside);
});
afterEach(() => {
  procFdUsable(null);
  fs.rmSync(base, { recursive: true, force: true });
});

const opts = { mode: null, durable: false, tempName: tempNameFor('.t-') };

for (const mode of ['proc', 'fstat fallback'] as const) {
  describe(`dir-walk (${mode})`, () => {
    beforeEach(() => {
      procFdUsable(mode === 'proc' ? null : false);
    });

    it('writes, renames and unlinks relative to the opened parent', () => {
      withParent(ws, 'a/b/f.txt', false, ({ dir, name }) => {
        dir.writeFile(name, 'one', { ...opts, mode: 0o640 });
        dir.rename(name, 'g.txt');
        dir.writeFile(name, 'two', opts);
        dir.unlink('g.txt');
      });
      expect(fs.readFileSync(path.join(ws, 'a/b/f.txt'), 'utf8')).toBe('two');
      expect(fs.readdirSync(path.join(ws, 'a/b'))).toEqual(['f.txt']); // no temp left
    });

    it('creates missing parents one component at a time and reports them outermost first', () => {
      const created = withParent(ws, 'a/x/y/f.txt', true, ({ dir, name, created }) => {
        dir.writeFile(name, 'hi', opts);
        return created;
      });
      expect(created).toEqual(['a/x', 'a/x/y']);
      expect(fs.readFileSync(path.join(ws, 'a/x/y/f.txt'), 'utf8')).toBe('hi');
    });

    it('refuses a symlinked parent, to the inside or the outside, and writes nothing', () => {
      fs.symlinkSync(outside, path.join(ws, 'link'));
      expect(() => openParent(ws, 'link/f.txt', true)).toThrow(UnsafePathError);
      expect(() => openParent(ws, 'link/f.txt', true)).toThrow(/link is a symbolic link; refused/);
      fs.symlinkSync('a', path.join(ws, 'inner'));
      expect(() => openParent(ws, 'inner/b/f.txt', false)).toThrow(/inner is a symbolic link/);
      expect(fs.readdirSync(outside)).toEqual([]);
    });

    it('refuses a file in the way and names with .. or slashes', () => {
      fs.writeFileSync(path.join(ws, 'file'), '');
      expect(() => openParent(ws, 'file/f.txt', true)).toThrow(/file is not a directory/);
      expect(() => openParent(ws, 'a/../../x', true)).toThrow(UnsafePathError);
      withParent(ws, 'a/f', false, ({ dir }) => {
        expect(() => dir.writeFile('../x', '', opts)).toThrow(UnsafePathError);
      });
    });

    it('does not write a file through a symlink at the final name (the rename replaces the link)', () => {
      fs.symlinkSync(path.join(outside, 'victim'), path.join(ws, 'a', 'f.txt'));
      withParent(ws, 'a/f.txt', false, ({ dir, name }) => dir.writeFile(name, 'x', opts));
      expect(fs.readdirSync(outside)).toEqual([]);
      expect(fs.lstatSync(path.join(ws, 'a/f.txt')).isFile()).toBe(true);
    });

    it('a parent swapped for a symlink after opening: nothing lands outside', () => {
      const opened = openParent(ws, 'a/b/f.txt', false);
      fs.renameSync(path.join(ws, 'a'), path.join(ws, 'moved'));
      fs.symlinkSync(outside, path.join(ws, 'a'));
      try {
        if (mode === 'proc') {
          opened.dir.writeFile(opened.name, 'x', opts); // lands in the directory that was opened
          expect(fs.readFileSync(path.join(ws, 'moved/b/f.txt'), 'utf8')).toBe('x');
        } else {
          expect(() => opened.dir.writeFile(opened.name, 'x', opts)).toThrow(/changed while being written; refused/);
        }
      } finally {
        opened.dir.close();
      }
      expect(fs.readdirSync(outside)).toEqual([]);
    });

    it('writes symlinks via a temp name, replacing what is there', () => {
      fs.writeFileSync(path.join(ws, 'a/l'), 'old');
      withParent(ws, 'a/l', false, ({ dir, name }) => dir.writeSymlink(name, 'target', tempNameFor('.t-')));
      expect(fs.readlinkSync(path.join(ws, 'a/l'))).toBe('target');
      expect(fs.readdirSync(path.join(ws, 'a')).sort()).toEqual(['b', 'l']);
    });
  });
}

it('/proc/self/fd is usable on this machine (Linux); the fallback is only for systems without it', () => {
  if (process.platform !== 'linux') return;
  expect(procFdUsable()).toBe(true);
});
