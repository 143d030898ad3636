import { describe, expect, it } from 'vitest';
import { markdownWanted, prepareTerminalOutput, prepareTerminalOutputLater, terminalOutputPrepared, terminalRenderOptions } from './terminal-output.ts';

const TTY = { isTTY: true, columns: 100 };

describe('markdownWanted', () => {
  it('only on a terminal with colours, without --raw or --json', () => {
    expect(markdownWanted({ color: true }, TTY, {})).toBe(true);
    expect(markdownWanted({ color: true }, { isTTY: false }, {})).toBe(false);
    expect(markdownWanted({ color: true, raw: true }, TTY, {})).toBe(false);
    expect(markdownWanted({ color: true, json: true }, TTY, {})).toBe(false);
    expect(markdownWanted({ color: false }, TTY, {})).toBe(false);
    expect(markdownWanted({ color: true }, TTY, { NO_COLOR: '1' })).toBe(false);
    expect(markdownWanted({ color: true }, TTY, { NO_COLOR: '' })).toBe(true);
  });
});

describe('prepareTerminalOutput', () => {
  it('loads the renderer when wanted, and hands it to renderers with the width', async () => {
    await prepareTerminalOutput({ color: true }, TTY, {});
    const opts = terminalRenderOptions(TTY);
    expect(opts.columns()).toBe(100);
    const md = opts.markdown?.({ columns: () => 80 });
    expect((md?.push('**x**\n') ?? '') + (md?.end() ?? '')).toBe('\x1b[1mx\x1b[22m\n');
    await prepareTerminalOutput({ color: true, raw: true }, TTY, {});
    expect(terminalRenderOptions(TTY).markdown).toBeUndefined();
    expect(terminalRenderOptions({}).columns()).toBe(80);
  });
});

describe('prepareTerminalOutputLater (the REPL: prompt first, renderer after)', () => {
  it('decides at once, loads only when awaited, and then renderers get Markdown', async () => {
    prepareTerminalOutputLater({ color: true }, TTY, {});
    expect(terminalRenderOptions(TTY).markdown).toBeUndefined();
    await terminalOutputPrepared();
    expect(terminalRenderOptions(TTY).markdown).toBeTypeOf('function');
    prepareTerminalOutputLater({ color: true }, { isTTY: false }, {});
    await terminalOutputPrepared();
    expect(terminalRenderOptions(TTY).markdown).toBeUndefined();
  });
});
