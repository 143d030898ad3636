import { describe, expect, it } from 'vitest';
import { TerminalModes, type ProcessSignals } from './terminal-modes.ts';

type Event = 'exit' | 'SIGTSTP' | 'SIGCONT';

/** A process whose listeners can be fired, and whose kill() records what a stop looked like. */
function fakeProcess(onKill: () => void = () => undefined) {
  const listeners = new Map<Event, Set<() => void>>();
  const kills: { signal: string; stopListeners: number }[] = [];
  const proc: ProcessSignals & { fire(e: Event): void; count(e: Event): number } = {
    pid: 4242,
    on(e, l) {
      (listeners.get(e) ?? listeners.set(e, new Set()).get(e))?.add(l);
    },
    off(e, l) {
      listeners.get(e)?.delete(l);
    },
    kill(_pid, signal) {
      kills.push({ signal, stopListeners: listeners.get('SIGTSTP')?.size ?? 0 });
      onKill();
    },
    fire(e) {
      for (const l of [...(listeners.get(e) ?? [])]) l();
    },
    count(e) {
      return listeners.get(e)?.size ?? 0;
    },
  };
  return { proc, kills };
}

function fakeTerminal() {
  const log: string[] = [];
  const input = {
    isTTY: true,
    setRawMode(raw: boolean) {
      log.push(raw ? 'raw on' : 'raw off');
    },
  };
  const output = {
    isTTY: true,
    write(s: string) {
      log.push(JSON.stringify(s));
    },
  };
  return { input, output, log };
}

describe('TerminalModes', () => {
  it('sets raw mode and bracketed paste, and gives both back (cursor shown) on disable', () => {
    const { proc } = fakeProcess();
    const t = fakeTerminal();
    const modes = new TerminalModes(t.input, t.output, () => undefined, proc);
    modes.enable();
    expect(t.log).toEqual(['raw on', '"\\u001b[?2004h"']);
    modes.disable();
    expect(t.log.slice(2)).toEqual(['raw off', '"\\u001b[?2004l\\u001b[?25h"']);
    expect(proc.count('exit') + proc.count('SIGTSTP') + proc.count('SIGCONT')).toBe(0);
  });

  it('restores the terminal when the process exits, a crash included', () => {
    const { proc } = fakeProcess();
    const t = fakeTerminal();
    new TerminalModes(t.input, t.output, () => undefined, proc).enable();
    proc.fire('exit');
    expect(t.log.slice(-2)).toEqual(['raw off', '"\\u001b[?2004l\\u001b[?25h"']);
  });

  it('on Ctrl-Z restores the modes, stops with the default action, then sets them again and redraws', () => {
    const t = fakeTerminal();
    let stateAtStop = '';
    const { proc, kills } = fakeProcess(() => {
      stateAtStop = t.log.slice(-2).join(' ');
    });
    let redraws = 0;
    const modes = new TerminalModes(
      t.input,
      t.output,
      () => {
        redraws++;
      },
      proc,
    );
    modes.enable();
    modes.suspend();
    // While stopped, the shell has a normal terminal, and no listener keeps SIGTSTP from stopping.
    expect(stateAtStop).toBe('"\\u001b[?2004l\\u001b[?25h" "^Z\\n"');
    expect(kills).toEqual([{ signal: 'SIGTSTP', stopListeners: 0 }]);
    expect(t.log.slice(-2)).toEqual(['raw on', '"\\u001b[?2004h"']);
    expect(redraws).toBe(1);
    expect(proc.count('SIGTSTP')).toBe(1);
  });

  it('treats SIGTSTP from outside like Ctrl-Z, and re-applies the modes on SIGCONT', () => {
    const t = fakeTerminal();
    const { proc, kills } = fakeProcess();
    const modes = new TerminalModes(t.input, t.output, () => undefined, proc);
    modes.enable();
    proc.fire('SIGTSTP');
    expect(kills).toHaveLength(1);
    const before = t.log.length;
    proc.fire('SIGCONT');
    expect(t.log.slice(before)).toEqual(['raw on', '"\\u001b[?2004h"']);
  });

  it('writes no mode sequences to a stream that is not a terminal', () => {
    const { proc } = fakeProcess();
    const log: string[] = [];
    const modes = new TerminalModes({ isTTY: false }, { isTTY: false, write: (s: string) => log.push(s) }, () => undefined, proc);
    modes.enable();
    modes.disable();
    expect(log).toEqual([]);
  });
});
