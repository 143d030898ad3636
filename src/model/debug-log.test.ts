import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDebugLog } from './debug-log.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-dbg-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('createDebugLog', () => {
  it('logs redacted JSON lines', () => {
    const d = createDebugLog(path.join(dir, 'logs'), ['sk-abcdef123456']);
    d.log('request', { key: 'sk-abcdef123456' });
    expect(d.path).toBeDefined();
    expect(fs.readFileSync(d.path ?? '', 'utf8')).toMatch(/"key":"\[REDACTED\]"/);
  });

  it('a log that cannot be created warns once and never throws', () => {
    const blocker = path.join(dir, 'file');
    fs.writeFileSync(blocker, '');
    const warnings: string[] = [];
    const d = createDebugLog(path.join(blocker, 'logs'), [], new Date(), (m) => warnings.push(m));
    expect(d.path).toBeUndefined();
    expect(() => d.log('event', {})).not.toThrow();
    expect(warnings).toEqual([expect.stringMatching(/^--debug: cannot write .* \((ENOTDIR|EEXIST)\); continuing without the debug log$/)]);
  });

  it('a write that fails later (the file replaced, the disk full) warns once and stops logging', () => {
    const warnings: string[] = [];
    const d = createDebugLog(dir, [], new Date(), (m) => warnings.push(m));
    const p = d.path ?? '';
    fs.rmSync(p);
    fs.mkdirSync(p);
    expect(() => {
      d.log('event', { a: 1 });
      d.log('event', { a: 2 });
    }).not.toThrow();
    expect(warnings).toEqual([expect.stringMatching(/\(EISDIR\); continuing without the debug log$/)]);
  });
});
