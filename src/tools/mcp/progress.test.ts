import { describe, expect, it } from 'vitest';
import { cleanServerText } from '../../lib/text.ts';
import { PROGRESS_LINE_CHARS, ProgressThrottle, progressLabel, progressLine } from './progress.ts';
import type { ThrottleClock } from './progress.ts';

/** A clock the test moves by hand: timers fire when `advance` passes their time. */
function manualClock(): ThrottleClock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout(handle) {
      timers = timers.filter((t) => t.id !== handle);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((t) => t !== due);
        now = due.at;
        due.fn();
      }
      now = until;
    },
    pending: () => timers.length,
  };
}

describe('progressLine', () => {
  it('shows progress/total with the message, a percentage for fractions, the count alone without a total', () => {
    expect(progressLine({ progress: 3, total: 10, message: 'indexing src/' })).toBe('3/10 — indexing src/');
    expect(progressLine({ progress: 0.455, total: 1 })).toBe('45%');
    expect(progressLine({ progress: 1200, message: 'files scanned' })).toBe('1200 — files scanned');
    expect(progressLine({ progress: 2.5 })).toBe('2.5');
  });

  it('ignores a report whose progress is not a finite, non-negative number', () => {
    for (const progress of [-1, Number.NaN, Number.POSITIVE_INFINITY, '3', null, undefined, {}]) {
      expect(progressLine({ progress, total: 10, message: 'x' })).toBeUndefined();
    }
  });

  it('treats a total that makes no sense as unknown', () => {
    expect(progressLine({ progress: 5, total: -10 })).toBe('5');
    expect(progressLine({ progress: 5, total: 0 })).toBe('5');
    expect(progressLine({ progress: 5, total: 2 })).toBe('5');
    expect(progressLine({ progress: 5, total: Number.NaN })).toBe('5');
    expect(progressLine({ progress: 5, total: '10' })).toBe('5');
    expect(progressLine({ progress: 5, message: 42 })).toBe('5');
  });

  it('removes escape sequences and controls and keeps one bounded line', () => {
    const hostile = 'a\x1b]52;c;cHduZWQ=\x07b\x1b]0;title\x1b\\c\x1b[2J\x1b[31md\x9b\r\nnext\u202eline\tend\x1b';
    const line = progressLine({ progress: 1, total: 2, message: hostile });
    expect(line).toBe('1/2 — abcd next line end');
    const long = progressLine({ progress: 1, message: `${'é'.repeat(150)}${'😀'.repeat(100)}` }) ?? '';
    expect(Array.from(long)).toHaveLength(PROGRESS_LINE_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(long).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('labels a call server.tool, cut to fit', () => {
    expect(progressLabel('kit', 'index')).toBe('kit.index');
    expect(progressLabel('kit', `x\x1b[2J${'y'.repeat(200)}`).length).toBe(80);
    expect(cleanServerText('  a \n b  ', 10)).toBe('a b');
  });
});

describe('ProgressThrottle', () => {
  it('shows the first report at once, then at most one a second, the newest winning (trailing)', () => {
    const clock = manualClock();
    const shown: string[] = [];
    const throttle = new ProgressThrottle((l) => shown.push(l), 1000, clock);
    throttle.push('1');
    expect(shown).toEqual(['1']);
    for (let i = 2; i <= 500; i++) {
      throttle.push(String(i));
      clock.advance(1); // 500 reports in half a second
    }
    expect(shown).toEqual(['1']);
    clock.advance(501);
    expect(shown).toEqual(['1', '500']);
    clock.advance(5000);
    expect(shown).toEqual(['1', '500']);
    throttle.push('501');
    expect(shown).toEqual(['1', '500', '501']);
  });

  it('over a long flood shows about one line per second', () => {
    const clock = manualClock();
    const shown: string[] = [];
    const throttle = new ProgressThrottle((l) => shown.push(l), 1000, clock);
    for (let i = 0; i < 10_000; i++) {
      throttle.push(`step ${i}`);
      clock.advance(1); // ten seconds at 1000 reports a second
    }
    throttle.end();
    expect(shown.length).toBeGreaterThanOrEqual(10);
    expect(shown.length).toBeLessThanOrEqual(12);
    expect(shown.at(-1)).toBe('step 9999');
  });

  it('does not repeat a line equal to the last one shown', () => {
    const clock = manualClock();
    const shown: string[] = [];
    const throttle = new ProgressThrottle((l) => shown.push(l), 1000, clock);
    throttle.push('same');
    clock.advance(2000);
    throttle.push('same');
    clock.advance(2000);
    expect(shown).toEqual(['same']);
  });

  it('end() shows the state still waiting, then nothing more, and leaves no timer', () => {
    const clock = manualClock();
    const shown: string[] = [];
    const throttle = new ProgressThrottle((l) => shown.push(l), 1000, clock);
    throttle.push('1/10');
    throttle.push('9/10');
    throttle.push('10/10');
    expect(clock.pending()).toBe(1);
    throttle.end();
    expect(shown).toEqual(['1/10', '10/10']);
    expect(clock.pending()).toBe(0);
    throttle.push('late');
    clock.advance(5000);
    throttle.end();
    expect(shown).toEqual(['1/10', '10/10']);
  });
});
