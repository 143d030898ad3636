import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanOneshots, describeClean } from './oneshot-files.ts';

/** A pid no process has (above Linux's pid_max). */
const DEAD_PID = 999_999_999;
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-clean-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('agentx clean', () => {
  it('names one-shot files and the temporary files of interrupted writes apart, and keeps a running one-shot’s file', () => {
    fs.writeFileSync(path.join(dir, `.agentx_responseid.oneshot-${DEAD_PID}-20261206T100000Z`), '{}');
    fs.writeFileSync(path.join(dir, `.agentx_responseid.oneshot-${DEAD_PID}-20261206T110000Z`), '{}');
    fs.writeFileSync(path.join(dir, `.agentx_responseid.tmp-${DEAD_PID}-0a1b2c`), '{');
    fs.writeFileSync(path.join(dir, `.agentx_responseid.oneshot-${process.pid}-20261206T120000Z`), '{}');
    const result = cleanOneshots(dir, new Date());
    expect(result.removed).toHaveLength(3);
    expect(describeClean(result)).toBe('removed 2 leftover one-shot files and 1 temporary file of an interrupted write; kept 1 file of running one-shots');
    expect(describeClean({ removed: [`.agentx_checkpoint.tmp-${DEAD_PID}-ff`], running: [] })).toBe('removed 1 temporary file of an interrupted write');
    expect(describeClean({ removed: [], running: [] })).toBe('nothing to clean');
  });
});
