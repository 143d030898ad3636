import { describe, expect, it } from 'vitest';
import {
  markdownWanted,
  prepareTerminalOutput,
  prepareTerminalOutputLater,
  terminalColumns,
  terminalOutputPrepared,
  terminalRenderOptions,
} from './terminal-output.ts';

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

describe('terminalColumns', () => {
  it("a terminal's own width; else COLUMNS when it is a positive whole number; else 80", () => {
    expect(terminalColumns(TTY, { COLUMNS: '50' })).toBe(100);
    expect(terminalColumns({ isTTY: false }, {})).toBe(80);
    expect(terminalColumns({ isTTY: false }, { COLUMNS: '132' })).toBe(132);
    for (const bad of ['0', '-5', '12.5', 'wide', '']) expect(terminalColumns({}, { COLUMNS: bad })).toBe(80);
    // A terminal that reports no size (0 columns) is no width at all, not a width of 0.
    expect(terminalColumns({ isTTY: true, columns: 0 }, {})).toBe(80);
    expect(terminalColumns({ isTTY: true, columns: 0 }, { COLUMNS: '90' })).toBe(90);
  });

  it('the answer and the progress stream are measured each on its own', () => {
    const opts = terminalRenderOptions(TTY, { COLUMNS: '70' }, { isTTY: false });
    expect(opts.columns()).toBe(100);
    expect(opts.errColumns()).toBe(70);
    expect(terminalRenderOptions(TTY).errColumns()).toBe(100);
  });
});
