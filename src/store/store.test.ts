import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CHECKPOINT_FILE,
  STATE_FILE,
  cleanupStaleOneshots,
  deleteSessionFiles,
  loadCheckpointWithNotices,
  loadState,
  oneshotStatePath,
  saveCheckpoint,
  saveState,
} from './store.ts';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { emptyState, recordTurn } from './state.ts';
import type { SessionState } from './state.ts';

const NOW = new Date('2025-04-01T12:34:56.789Z');
let dir: string;
let statePath: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-store-'));
  statePath = path.join(dir, STATE_FILE);
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const list = (): string[] => fs.readdirSync(dir).sort();
const isRoot = process.getuid?.() === 0;

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('spawn failed');
  return child.pid;
}

function sampleState(turns: number): SessionState {
  let s = emptyState();
  for (let n = 1; n <= turns; n++) {
    s = recordTurn(s, {
      responseId: `resp_${n}`,
      userMessage: `question ${n} ${'q'.repeat(1500)}`,
      assistantMessage: `answer ${n} ${'a'.repeat(2500)}`,
      usage: { inputTokens: 1000, cachedTokens: 100, outputTokens: 200, reasoningTokens: 50 },
      now: new Date(NOW.getTime() + n),
    });
  }
  return s;
}

describe('writeFileAtomicSync', () => {
  it('writes with mode 0600 even under a permissive umask and leaves no temp files', () => {
    const old = process.umask(0o000);
    try {
      writeFileAtomicSync(statePath, 'one');
      writeFileAtomicSync(statePath, 'two');
    } finally {
      process.umask(old);
    }
    expect(fs.readFileSync(statePath, 'utf8')).toBe('two');
    expect(fs.statSync(statePath).mode & 0o777).toBe(0o600);
    expect(list()).toEqual([STATE_FILE]);
  });

  it('replaces a symlink instead of writing through it', () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-outside-'));
    const victim = path.join(outside, 'victim');
    fs.writeFileSync(victim, 'precious');
    fs.symlinkSync(victim, statePath);
    writeFileAtomicSync(statePath, 'new');
    expect(fs.lstatSync(statePath).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(statePath, 'utf8')).toBe('new');
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
    fs.rmSync(outside, { recursive: true });
  });

  it('cleans its temp file when the rename fails', () => {
    fs.mkdirSync(statePath);
    expect(() => writeFileAtomicSync(statePath, 'x')).toThrow();
    expect(list()).toEqual([STATE_FILE]);
  });
});

describe('loadState / saveState', () => {
  it('a missing file is a fresh, writable session', () => {
    expect(loadState(statePath, NOW)).toEqual({ state: emptyState(), existed: false, notices: [], writable: true });
  });

  it('round-trips a saved state', () => {
    const s = { ...sampleState(3), custom: { keep: true } };
    saveState(statePath, s);
    const loaded = loadState(statePath, NOW);
    expect(loaded).toMatchObject({ existed: true, notices: [], writable: true });
    expect(loaded.state).toEqual(s);
  });

  it('reads a legacy plain id and says it will be upgraded', () => {
    fs.writeFileSync(statePath, 'resp_abc123\n');
    const loaded = loadState(statePath, NOW);
    expect(loaded.state.response_id).toBe('resp_abc123');
    expect(loaded.notices[0]).toMatch(/older format/);
  });

  it('accepts BOM-prefixed JSON in place', () => {
    fs.writeFileSync(statePath, '\ufeff{"version":1,"response_id":"resp_b"}');
    expect(loadState(statePath, NOW)).toMatchObject({ existed: true, notices: [], state: { response_id: 'resp_b' } });
    expect(list()).toEqual([STATE_FILE]);
  });

  const bad: [string, Buffer][] = [
    ['truncated JSON', Buffer.from('{"version":1,"response_id":"resp_1","history":[{"resp')],
    ['binary garbage', Buffer.from([0x00, 0xff, 0xfe, 0x13, 0x37, 0x80, 0x81, 0x00, 0x42])],
    ['wrong type for the chain id', Buffer.from('{"version":1,"response_id":12345}')],
    ['a JSON array', Buffer.from('[{"response_id":"resp_1"}]')],
    ['an empty file', Buffer.alloc(0)],
    ['a huge file', Buffer.alloc(21 * 1024 * 1024, 0x20)],
  ];
  it.each(bad)('%s is moved aside with its bytes intact and a fresh session starts', (_name, bytes) => {
    fs.writeFileSync(statePath, bytes, { mode: 0o600 });
    const loaded = loadState(statePath, NOW);
    expect(loaded.state).toEqual(emptyState());
    expect(loaded.existed).toBe(false);
    expect(loaded.writable).toBe(true);
    const aside = `${STATE_FILE}.corrupt-2025-04-01T12-34-56-789Z`;
    expect(list()).toEqual([aside]);
    expect(fs.readFileSync(path.join(dir, aside)).equals(bytes)).toBe(true);
    expect(loaded.notices).toHaveLength(1);
    expect(loaded.notices[0]).toContain(aside);
  });

  it('never overwrites an earlier corrupt copy', () => {
    fs.writeFileSync(statePath, '{');
    loadState(statePath, NOW);
    fs.writeFileSync(statePath, '[');
    loadState(statePath, NOW);
    expect(list()).toEqual([`${STATE_FILE}.corrupt-2025-04-01T12-34-56-789Z`, `${STATE_FILE}.corrupt-2025-04-01T12-34-56-789Z-1`]);
    expect(fs.readFileSync(path.join(dir, list()[0] ?? ''), 'utf8')).toBe('{');
  });

  it('reports reset fields and keeps the session', () => {
    fs.writeFileSync(statePath, '{"version":1,"response_id":"resp_1","history":{}}');
    const loaded = loadState(statePath, NOW);
    expect(loaded).toMatchObject({ existed: true, writable: true, state: { response_id: 'resp_1', history: [] } });
    expect(loaded.notices[0]).toMatch(/history/);
  });

  it('does not follow a symlink pointing outside the directory; saving replaces the link', () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-outside-'));
    const target = path.join(outside, 'state');
    const original = '{"version":1,"response_id":"resp_evil"}';
    fs.writeFileSync(target, original);
    fs.symlinkSync(target, statePath);
    const loaded = loadState(statePath, NOW);
    expect(loaded).toMatchObject({ existed: false, writable: true, state: emptyState() });
    expect(loaded.notices[0]).toMatch(/outside this directory/);
    expect(fs.lstatSync(statePath).isSymbolicLink()).toBe(true);
    saveState(statePath, sampleState(1));
    expect(fs.lstatSync(statePath).isFile()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe(original);
    fs.rmSync(outside, { recursive: true });
  });

  it('follows a symlink that stays inside the directory', () => {
    fs.writeFileSync(path.join(dir, 'real-state'), '{"version":1,"response_id":"resp_in"}');
    fs.symlinkSync('real-state', statePath);
    expect(loadState(statePath, NOW)).toMatchObject({ existed: true, state: { response_id: 'resp_in' } });
  });

  it('refuses a FIFO without blocking', () => {
    const made = spawnSync('mkfifo', [statePath]);
    expect(made.status).toBe(0);
    expect(loadState(statePath, NOW)).toMatchObject({ writable: false, existed: false });
    expect(() => saveState(statePath, emptyState())).toThrow(/refusing/);
    expect(deleteSessionFiles(dir)).toEqual([]);
  });

  it.runIf(isRoot)('never reads, moves, replaces or deletes a file owned by another user', () => {
    fs.writeFileSync(statePath, '{"version":1,"response_id":"resp_theirs"}');
    fs.chownSync(statePath, 65534, 65534);
    const loaded = loadState(statePath, NOW);
    expect(loaded).toMatchObject({ existed: false, writable: false, state: emptyState() });
    expect(loaded.notices[0]).toMatch(/owned by another user/);
    expect(() => saveState(statePath, sampleState(1))).toThrow(/owned by another user/);
    expect(deleteSessionFiles(dir)).toEqual([]);
    expect(fs.readFileSync(statePath, 'utf8')).toContain('resp_theirs');
  });
});

describe('checkpoint files', () => {
  it('saves and loads; a bad one is ignored with a notice and left in place', () => {
    expect(loadCheckpointWithNotices(dir).checkpoint).toBeNull();
    const cp = {
      version: 1 as const,
      response_id: 'resp_c',
      timestamp: NOW.toISOString(),
      usage: sampleState(1).usage,
      source: 'turn' as const,
      context_tokens: 120,
    };
    saveCheckpoint(dir, cp);
    expect(loadCheckpointWithNotices(dir).checkpoint).toEqual(cp);
    expect(fs.statSync(path.join(dir, CHECKPOINT_FILE)).mode & 0o777).toBe(0o600);
    fs.writeFileSync(path.join(dir, CHECKPOINT_FILE), '{"resp');
    const bad = loadCheckpointWithNotices(dir);
    expect(bad.checkpoint).toBeNull();
    expect(bad.notices[0]).toMatch(/could not be used/);
    expect(list()).toEqual([CHECKPOINT_FILE]);
  });
});

describe('deleteSessionFiles', () => {
  it('removes state and checkpoint only', () => {
    saveState(statePath, sampleState(1));
    fs.writeFileSync(path.join(dir, CHECKPOINT_FILE), '{}');
    const oneshot = path.basename(oneshotStatePath(dir, 4242, NOW));
    fs.writeFileSync(path.join(dir, oneshot), '{}');
    fs.writeFileSync(path.join(dir, `${STATE_FILE}.corrupt-x`), '{');
    expect(deleteSessionFiles(dir)).toEqual([STATE_FILE, CHECKPOINT_FILE]);
    expect(list()).toEqual([`${STATE_FILE}.corrupt-x`, oneshot].sort());
    expect(deleteSessionFiles(dir)).toEqual([]);
  });
});

describe('one-shot files', () => {
  it('names isolated state after pid and a filename-safe time', () => {
    expect(oneshotStatePath(dir, 123, NOW)).toBe(path.join(dir, '.agentx_responseid.oneshot-123-2025-04-01T12-34-56-789Z'));
  });

  it('cleanupStaleOneshots removes only old files of dead processes', () => {
    const dead = deadPid();
    const old = new Date(NOW.getTime() - 2 * 3600_000);
    const make = (name: string, mtime: Date): void => {
      fs.writeFileSync(path.join(dir, name), '{}');
      fs.utimesSync(path.join(dir, name), mtime, mtime);
    };
    const oldDead = path.basename(oneshotStatePath(dir, dead, old));
    const oldAlive = path.basename(oneshotStatePath(dir, process.pid, old));
    const newDead = path.basename(oneshotStatePath(dir, dead, NOW));
    const staleTemp = `${STATE_FILE}.tmp-${dead}-abcdef012345`;
    make(oldDead, old);
    make(oldAlive, old);
    make(newDead, NOW);
    make(staleTemp, old);
    make(`${STATE_FILE}.corrupt-2020`, old);
    make('unrelated.oneshot-1-2020', old);
    fs.symlinkSync('/etc/hostname', path.join(dir, `${STATE_FILE}.oneshot-${dead}-2020-01-01T00-00-00-000Z`));
    const removed = cleanupStaleOneshots(dir, NOW);
    expect(removed.sort()).toEqual([oldDead, staleTemp].sort());
    expect(list()).toContain(oldAlive);
    expect(list()).toContain(newDead);
    expect(list()).toHaveLength(5);
  });
});
