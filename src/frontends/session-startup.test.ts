// The start-up steps both front-ends share, on real files in a temp dir (and a real git repo for
// the exclude): the lock outcomes, what each front-end loads and prunes, and the store's first save.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beginRollback } from '../engine/rollback.ts';
import { sessionArchiveDir } from '../paths.ts';
import { outputRecordId, type ConversationLog, type LogRecord } from '../store/log/conversation-log.ts';
import { archiveSession } from '../store/session-archive.ts';
import { emptyState, type SessionState } from '../store/state.ts';
import type { ConversationItem } from '../wire/items.ts';
import { sealingEnabled, useStateKey } from '../store/seal.ts';
import { oneshotStatePath } from '../store/store.ts';
import {
  finishOneshot,
  loadOneshotStart,
  loadReplSession,
  lockSession,
  openConversationLog,
  openSessionStore,
  replStatePath,
  useSessionSeal,
} from './session-startup.ts';

let dir: string;
/** A pid no process has (above Linux's pid_max): its files count as left by a dead one-shot. */
const DEAD_PID = 999_999_999;
const HOUR_MS = 3_600_000;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-startup-')));
});
afterEach(() => {
  useStateKey(undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A one-shot leftover of a dead process, last written `ageMs` before `now`. */
function leftover(now: Date, ageMs: number): string {
  const p = oneshotStatePath(dir, DEAD_PID, new Date(now.getTime() - ageMs));
  fs.writeFileSync(p, '{}');
  const then = new Date(now.getTime() - ageMs);
  fs.utimesSync(p, then, then);
  return path.basename(p);
}

const failing = (code: string) => (): never => {
  throw Object.assign(new Error(`${code}: failed`), { code });
};

describe('lockSession', () => {
  it('locks a directory once; a second lock finds it held', () => {
    const first = lockSession(dir);
    expect(first.kind).toBe('locked');
    expect(lockSession(dir)).toEqual({ kind: 'busy', pid: process.pid });
    if (first.kind === 'locked') first.release();
    const again = lockSession(dir);
    expect(again.kind).toBe('locked');
    if (again.kind === 'locked') again.release();
  });

  it('runs unsaved where nothing can be written, and stops on any other failure', () => {
    expect(lockSession(dir, failing('EROFS'))).toEqual({ kind: 'unsaved', reason: 'read-only file system, EROFS' });
    expect(lockSession(dir, failing('ENOSPC'))).toEqual({ kind: 'unsaved', reason: 'no space left on device, ENOSPC' });
    expect(lockSession(dir, failing('ELOOP'))).toEqual({ kind: 'error', message: 'ELOOP: failed' });
  });
});

it('useSessionSeal turns sealing on with the key under the home directory', () => {
  expect(sealingEnabled()).toBe(false);
  useSessionSeal({ HOME: dir });
  expect(sealingEnabled()).toBe(true);
});

describe('loadReplSession', () => {
  it("loads the state file and drops a dead one-shot's file older than an hour, keeping newer ones", () => {
    const now = new Date();
    const stale = leftover(now, 2 * HOUR_MS);
    const recent = leftover(now, 60_000);
    const loaded = loadReplSession(dir, now);
    expect(loaded.existed).toBe(false);
    expect(fs.existsSync(path.join(dir, stale))).toBe(false);
    expect(fs.existsSync(path.join(dir, recent))).toBe(true);
  });
});

describe('loadOneshotStart', () => {
  it('says what pruning removed before why the checkpoint is not used; --fresh does not read it', () => {
    const now = new Date();
    const old = leftover(now, 8 * 24 * HOUR_MS);
    const week = leftover(now, 2 * HOUR_MS);
    fs.writeFileSync(path.join(dir, '.agentx_checkpoint'), '{}');
    const start = loadOneshotStart(dir, now, 4242, false);
    expect(start.statePath).toBe(oneshotStatePath(dir, 4242, now));
    expect(start.checkpoint).toBeNull();
    expect(start.notices).toHaveLength(2);
    expect(start.notices[0]).toMatch(/^removed 1 leftover one-shot file older than 7 days/);
    expect(start.notices[1]).toMatch(/^\.agentx_checkpoint could not be used .*; starting fresh\.$/);
    expect(fs.existsSync(path.join(dir, old))).toBe(false);
    expect(fs.existsSync(path.join(dir, week))).toBe(true);
    expect(loadOneshotStart(dir, now, 4242, true).notices).toEqual([]);
  });
});

describe('loadOneshotStart beside an unfinished /rollback', () => {
  it('says that the rollback has not finished (the checkpoint is the one before it), until the REPL finishes it', () => {
    const env = { HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') };
    useSessionSeal(env);
    const repl = openSessionStore({
      dir,
      path: replStatePath(dir),
      log: openConversationLog(env, dir, () => undefined),
      initial: emptyState(),
      persistence: 'durable',
      publishesCheckpoint: true,
      warn: () => undefined,
      excluded: () => undefined,
    });
    repl.update((s) => ({ ...s, response_id: 'resp_1' }));
    repl.saveOrGoMemory();
    expect(loadOneshotStart(dir, new Date(), 4242, false).notices).toEqual([]);
    // The REPL journals the rollback before restoring files; a kill -9 now leaves it so.
    const plan = { workspace: dir, startSnapshot: 'abc', actions: [], skipped: [] };
    repl.update((s) => beginRollback(s, { step: { op: 'rollback', index: 1, scope: 'both' }, plan, before: null }));
    repl.saveOrGoMemory();
    const notices = loadOneshotStart(dir, new Date(), 4242, false).notices;
    expect(notices).toEqual([
      expect.stringMatching(
        /^a \/rollback of the interactive session here has not finished .*continues from the checkpoint before it — start agentx here to finish the rollback$/,
      ),
    ]);
    expect(loadOneshotStart(dir, new Date(), 4242, true).notices).toEqual([expect.stringContaining('this one-shot starts a new conversation')]);
  });
});

describe('openSessionStore and finishOneshot', () => {
  it('the first save writes the state file and adds the exclude once; a finished one-shot leaves no file', () => {
    execFileSync('git', ['init', '-q'], { cwd: dir, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
    const excluded: string[] = [];
    const warned: string[] = [];
    const statePath = oneshotStatePath(dir, process.pid, new Date());
    const store = openSessionStore({
      dir,
      path: statePath,
      log: openConversationLog({ HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') }, dir, (line) => warned.push(line)),
      initial: { ...emptyState(), last_user_message: 'hello' },
      persistence: 'fast',
      publishesCheckpoint: false,
      warn: (line) => warned.push(line),
      excluded: (line) => excluded.push(line),
    });
    expect(store.saveOrGoMemory()).toBeUndefined();
    expect(store.saveOrGoMemory()).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(statePath, 'utf8'))).toMatchObject({ last_user_message: 'hello' });
    expect(excluded).toHaveLength(1);
    expect(excluded[0]).toMatch(/^added \.agentx_responseid\* and \.agentx_checkpoint\* to .*\.git\/info\/exclude/);
    expect(warned).toEqual([]);
    finishOneshot(statePath);
    expect(fs.existsSync(statePath)).toBe(false);
    expect(replStatePath(dir)).toBe(path.join(dir, '.agentx_responseid'));
  });
});

describe('the conversation log keeps what the session files point at', () => {
  const user = (text: string): ConversationItem => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  const said = (text: string): ConversationItem => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
  const compaction: ConversationItem = { type: 'compaction', encrypted_content: 'summary' };
  // Written after the REPL's retry item (which the store stamps with the real clock): the one-shots' are newer.
  let clock = Date.now() + 60_000;
  const exchange = (id: string, prev: string | null, extra: ConversationItem[] = [], bytes = 300): LogRecord => ({
    prev,
    response_id: id,
    input: [...extra, user(`say ${id} ${'x'.repeat(bytes)}`)],
    output: [said(`answer ${id}`)],
    stored: true,
    at: new Date((clock += 1000)).toISOString(),
  });

  it('after 70 one-shots (each its own process, pruning a tiny log), a restarted REPL replays its head, its Retry is whole, and /resume’s entry replays', () => {
    const env = { HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') };
    useSessionSeal(env);
    // No grace for recent records (conversation-log.ts PIN_GRACE_MS): this test's records are stamped
    // minutes ahead of the clock (`clock` above), so "recent" must start after all of them.
    const logOptions = { pruneAtBytes: 8 * 1024, pinGraceMs: -60 * 60_000 };
    const notices: string[] = [];
    const openStore = (statePath: string, log: ConversationLog, initial: SessionState, oneshot: boolean) =>
      openSessionStore({
        dir,
        path: statePath,
        log,
        initial,
        persistence: oneshot ? 'fast' : 'durable',
        publishesCheckpoint: !oneshot,
        warn: (line) => notices.push(line),
        excluded: () => undefined,
      });

    // An earlier conversation, archived by /clear: its head is what /resume chains from or replays.
    const repl = openConversationLog(env, dir, (line) => notices.push(line), logOptions);
    repl.append(exchange('a1', null));
    repl.append(exchange('arch', 'a1'));
    archiveSession(sessionArchiveDir(env, dir, dir), { ...emptyState(), response_id: 'arch', usage: { ...emptyState().usage, turns: 2 } }, new Date());
    // The REPL's conversation: a compaction, the turn the checkpoint names (h3), then a turn that
    // left no checkpoint (head), and a failed request whose tool output waits for Retry in the log.
    const store = openStore(replStatePath(dir), repl, emptyState(), false);
    repl.append(exchange('h1', null));
    repl.append(exchange('h2', 'h1', [compaction]));
    repl.append(exchange('h3', 'h2'));
    store.update((s) => ({ ...s, response_id: 'h3' }));
    store.publishCheckpoint('turn');
    repl.append(exchange('head', 'h3'));
    const retryOutput: ConversationItem = { type: 'function_call_output', call_id: 'call_retry', output: 'ran once' };
    const retry = { input: [retryOutput], previous_response_id: null, user_message: 'go on', timestamp: new Date().toISOString() };
    store.update((s) => ({ ...s, response_id: 'head', pending_transaction: retry }));
    const replay = repl.conversation('head');
    expect(replay?.[0]).toEqual(compaction);

    for (let i = 0; i < 70; i++) {
      // A one-shot: its own log instance and isolated file, branching from the checkpoint.
      const started = loadOneshotStart(dir, new Date(), process.pid + 1 + i, false);
      expect(started.checkpoint?.response_id).toBe('h3');
      const log = openConversationLog(env, dir, (line) => notices.push(line), logOptions);
      const oneshot = openStore(started.statePath, log, emptyState(), true);
      log.append(exchange(`one${i}`, 'h3', [], 3000));
      // And an item of a failed first request (prev null), like the REPL's waiting for Retry: 70 newer ones than it.
      const item: ConversationItem = { type: 'function_call_output', call_id: `call_${i}`, output: 'ok' };
      log.append({ prev: null, response_id: outputRecordId(null, `item-${i}`), input: [item], output: [], stored: false, at: exchange('-', null).at });
      oneshot.update((s) => ({ ...s, response_id: `one${i}` }));
      finishOneshot(started.statePath);
    }

    // The REPL restarts: its state loads whole from the file and the log.
    const loaded = loadReplSession(dir, new Date());
    const log = openConversationLog(env, dir, (line) => notices.push(line), logOptions);
    const restarted = openStore(replStatePath(dir), log, loaded.state, false);
    expect(notices).toEqual([]);
    expect(restarted.state.response_id).toBe('head');
    expect(restarted.state.pending_transaction?.input).toEqual([retryOutput]);
    expect(log.conversation('head')).toEqual(replay);
    expect(log.conversation('arch')).toHaveLength(4);
    // The log was pruned: the oldest one-shots are gone from it and from the archive beside it.
    expect(log.find('one0')).toBeUndefined();
  });
});
