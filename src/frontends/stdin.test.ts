import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { combineMessage, messageFromInput, readPipedInput, type StdinReadOptions } from './stdin.ts';

function options(over: Partial<StdinReadOptions> = {}): StdinReadOptions & { notes: string[] } {
  const notes: string[] = [];
  return { messageGiven: false, graceMs: 10_000, progressAfterMs: 10_000, maxBytes: 1024, note: (m) => notes.push(m), notes, ...over };
}

/** Resolves at the first note (the reader's own signal that its timer fired): no fixed sleeps. */
function noteSeen(opts: { note: (m: string) => void }): Promise<string> {
  return new Promise((resolve) => {
    const original = opts.note;
    opts.note = (m) => {
      original(m);
      resolve(m);
    };
  });
}

describe('readPipedInput', () => {
  it('reads a pipe to EOF', async () => {
    const s = new PassThrough();
    const p = readPipedInput(s, options());
    s.write('hello ');
    s.end('world');
    expect(await p).toEqual({ kind: 'read', text: 'hello world' });
  });

  it('ignores an idle pipe after the grace only when a message was given, and notices data that comes later', async () => {
    const s = new PassThrough();
    const result = await readPipedInput(s, options({ messageGiven: true, graceMs: 5 }));
    expect(result.kind).toBe('ignored');
    if (result.kind !== 'ignored') return;
    expect(result.lateData()).toBe(false);
    const arrived = new Promise((resolve) => s.once('data', resolve));
    s.write('late');
    await arrived;
    expect(result.lateData()).toBe(true);
  });

  it('once data has arrived, reads until EOF however long the pipe stays open (slow producer)', async () => {
    const s = new PassThrough();
    const opts = options({ messageGiven: true, graceMs: 1, progressAfterMs: 2 });
    const progress = noteSeen(opts);
    const p = readPipedInput(s, opts);
    s.write('first part, ');
    // The grace and the progress timers have both fired by the time the note is out.
    expect(await progress).toMatch(/reading stdin until it is closed \(12 bytes so far/);
    s.end('second part');
    expect(await p).toEqual({ kind: 'read', text: 'first part, second part' });
  });

  it('without a message waits for an idle pipe (with a progress note) instead of giving up', async () => {
    const s = new PassThrough();
    const opts = options({ messageGiven: false, graceMs: 1, progressAfterMs: 1 });
    const progress = noteSeen(opts);
    const p = readPipedInput(s, opts);
    await progress;
    s.end('finally');
    expect(await p).toEqual({ kind: 'read', text: 'finally' });
  });

  it('an empty pipe that closes at once is an empty read, not an ignored one', async () => {
    const s = new PassThrough();
    s.end();
    expect(await readPipedInput(s, options({ messageGiven: true, graceMs: 10_000 }))).toEqual({ kind: 'read', text: '' });
  });

  it('refuses input over the byte limit', async () => {
    const s = new PassThrough();
    const p = readPipedInput(s, options({ maxBytes: 10 }));
    s.write('0123456789abc');
    expect(await p).toEqual({ kind: 'too_large', bytes: 13 });
  });

  it('a stream error (nohup: write-only stdin, EBADF) is a result, not a crash', async () => {
    const s = new PassThrough();
    const p = readPipedInput(s, options());
    s.destroy(Object.assign(new Error('bad file descriptor'), { code: 'EBADF' }));
    expect(await p).toEqual({ kind: 'unreadable', reason: 'EBADF' });
  });
});

describe('messageFromInput', () => {
  const base = { graceMs: 5, maxBytes: 1024, note: () => undefined };

  it('combines the argument and the piped text with a blank line between them', async () => {
    const stdin = new PassThrough();
    stdin.end('  diff --git a b\n');
    const r = await messageFromInput({ ...base, argument: 'review this ', dash: false, stdin });
    expect(r).toMatchObject({ message: 'review this\n\ndiff --git a b' });
    expect(combineMessage('', 'only piped')).toBe('only piped');
  });

  it('never reads a terminal unless `-` asks for it', async () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true });
    tty.write('typed ahead');
    const r = await messageFromInput({ ...base, argument: 'hi', dash: false, stdin: tty });
    expect(r).toMatchObject({ message: 'hi' });
    const none = await messageFromInput({ ...base, argument: '', dash: false, stdin: tty });
    expect(none).toEqual({ error: 'empty message: give it as an argument or on stdin' });
  });

  it('with a message, an unreadable stdin is ignored; without one it is a clear error', async () => {
    const broken = (): PassThrough => {
      const s = new PassThrough();
      queueMicrotask(() => s.destroy(Object.assign(new Error('x'), { code: 'EBADF' })));
      return s;
    };
    expect(await messageFromInput({ ...base, argument: 'hi', dash: false, stdin: broken() })).toMatchObject({ message: 'hi' });
    expect(await messageFromInput({ ...base, argument: '', dash: false, stdin: broken() })).toEqual({
      error: 'cannot read stdin (EBADF) and no message was given',
    });
  });

  it('says when an idle pipe was not waited for', async () => {
    const notes: string[] = [];
    const r = await messageFromInput({ ...base, note: (m) => notes.push(m), argument: 'hi', dash: false, stdin: new PassThrough() });
    expect(r).toMatchObject({ message: 'hi' });
    expect(notes).toEqual(['nothing on stdin within 5 ms; answering without it (use `agentx - "…"` to wait for stdin)']);
  });

  it('names the limit when stdin is too large', async () => {
    const stdin = new PassThrough();
    stdin.end('x'.repeat(2000));
    expect(await messageFromInput({ ...base, argument: '', dash: true, stdin })).toEqual({
      error: 'stdin holds more than 1.0 KB (AGENTX_MAX_STDIN_BYTES); send a smaller excerpt',
    });
  });
});
