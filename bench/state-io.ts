// State I/O per tool call and per turn (issue 22 §6): bytes written to the project's session
// files and to the conversation log, and fsyncs, counted at the system-call boundary (node:fs
// wrapped, so every write and sync of the real store, the real log and the real engine is seen).
// The session is a long one, as a person's REPL gets after a while: 20 turns with two commands
// each (20 checkpoints, a full transcript), then the measured turn. Bundled and run by
// bench/state-io.mjs.
import * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename, join } from 'node:path';
import { ConversationLog } from '../src/store/log/conversation-log.ts';
import { Engine } from '../src/engine/engine.ts';
import { ModelError } from '../src/model/errors.ts';
import { echoCall, echoTool, harness, type Step } from '../test/support/engine.ts';
import type { Tool } from '../src/tools/tool.ts';

type FileClass = 'state' | 'checkpoint' | 'log' | 'directory' | 'other';

interface Io { bytes: Record<FileClass, number>; fsyncs: Record<FileClass, number>; stateWrites: number }

function zero(): Io {
  return { bytes: { state: 0, checkpoint: 0, log: 0, directory: 0, other: 0 }, fsyncs: { state: 0, checkpoint: 0, log: 0, directory: 0, other: 0 }, stateWrites: 0 };
}

let io = zero();
const fdClass = new Map<number, FileClass>();

function classify(path: string): FileClass {
  const name = basename(path);
  if (name.startsWith('.agentx_responseid')) return 'state';
  if (name.startsWith('.agentx_checkpoint')) return 'checkpoint';
  if (name.endsWith('.log')) return 'log';
  try {
    if (fs.statSync(path).isDirectory()) return 'directory';
  } catch {
    // not there yet: a file being created
  }
  return 'other';
}

/** Wraps the sync calls the store and the log use; ESM importers see the wrappers (syncBuiltinESMExports). */
function instrument(): void {
  const open = fs.openSync;
  const write = fs.writeSync;
  const fsync = fs.fsyncSync;
  const fdatasync = fs.fdatasyncSync;
  const close = fs.closeSync;
  // The namespace is read-only; its default export is node:fs itself, which syncBuiltinESMExports copies back.
  const patched = (fs as unknown as { default: Record<string, unknown> }).default;
  patched.openSync = (path: fs.PathLike, ...rest: unknown[]): number => {
    const fd = (open as (...a: unknown[]) => number)(path, ...rest);
    const cls = classify(String(path));
    fdClass.set(fd, cls);
    if (cls === 'state' && String(path).includes('.tmp-')) io.stateWrites++;
    return fd;
  };
  patched.writeSync = (fd: number, ...rest: unknown[]): number => {
    const n = (write as (...a: unknown[]) => number)(fd, ...rest);
    io.bytes[fdClass.get(fd) ?? 'other'] += n;
    return n;
  };
  patched.fsyncSync = (fd: number): void => {
    io.fsyncs[fdClass.get(fd) ?? 'other']++;
    fsync(fd);
  };
  patched.fdatasyncSync = (fd: number): void => {
    io.fsyncs[fdClass.get(fd) ?? 'other']++;
    fdatasync(fd);
  };
  patched.closeSync = (fd: number): void => {
    fdClass.delete(fd);
    close(fd);
  };
  syncBuiltinESMExports();
}

/** About what `npm test` or `git diff` prints: 2 KiB per command. */
const OUTPUT = 'x'.repeat(2048);
const WARM_TURNS = 20;

function turnSteps(turn: number, calls: number): Step[] {
  const items = Array.from({ length: calls }, (_, i) => echoCall(`t${turn}c${i}`, `${i} ${OUTPUT}`));
  const answer = { text: `answer ${turn}: ${'the lockfile pins a different minor version; run npm ci. '.repeat(20)}` };
  return calls > 0 ? [{ text: '', calls: items }, answer] : [answer];
}

export interface TurnIo { calls: number; io: Io }

/** What a test run or a build prints: a short command, a long output. */
const LONG_OUTPUT_BYTES = 32 * 1024;

/** The echo tool, answering with `bytes` of output for a short call (the `long` turns). */
function longOutputTool(bytes: number): Tool<ReturnType<typeof echoTool> extends Tool<infer C> ? C : never> {
  const base = echoTool([]);
  return {
    ...base,
    // A tool says what happened in its reply; the turn loop makes the output item from it.
    run: async (call, ctx) => {
      const r = await base.run(call, ctx);
      return { ...r, reply: { ok: true, text: `${call.text}\n${'y'.repeat(bytes)}` } };
    },
  };
}

function longTurnSteps(turn: number, calls: number): Step[] {
  const items = Array.from({ length: calls }, (_, i) => echoCall(`t${turn}c${i}`, `npm test -- shard ${i}`));
  return [{ text: '', calls: items }, { text: `answer ${turn}: all shards pass.` }];
}

/**
 * The measured turn (after WARM_TURNS turns of two commands each) with `calls` commands; `long`:
 * short commands with 32 KiB of output each, instead of 2 KiB echoed back.
 */
async function measureTurn(calls: number, long = false): Promise<TurnIo> {
  const steps: Step[] = [];
  for (let t = 0; t < WARM_TURNS; t++) steps.push(...turnSteps(t, 2));
  steps.push(...(long ? longTurnSteps(WARM_TURNS, calls) : turnSteps(WARM_TURNS, calls)));
  const logDir = fs.mkdtempSync(join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'agentx-state-io-log-'));
  const log = new ConversationLog(join(logDir, 'project.log'));
  const h = harness(steps, [long ? longOutputTool(LONG_OUTPUT_BYTES) : echoTool([])], { log });
  const engine = new Engine(h.deps);
  const signal = new AbortController().signal;
  for (let t = 0; t < WARM_TURNS; t++) await engine.message(`question ${t}: why does the build fail on CI but not locally?`, [], signal);
  io = zero();
  // The engine publishes the checkpoint itself at the end of the turn.
  const outcome = await engine.message(`question ${WARM_TURNS}: and now?`, [], signal);
  if (outcome.kind !== 'done') throw new Error(`the measured turn ended ${outcome.kind}`);
  const measured = io;
  // Detached, so what runs after the measured turn is not counted into it.
  io = zero();
  fs.rmSync(h.dir, { recursive: true, force: true });
  fs.rmSync(logDir, { recursive: true, force: true });
  return { calls, io: measured };
}

/**
 * The state file while a failed request waits for Retry (`pending_transaction`): the measured
 * turn's 10 short commands with 32 KiB of output each, then its follow-up request fails. Every
 * write until the person chooses rewrites this file.
 */
async function failedFollowUpBytes(): Promise<number> {
  const steps: Step[] = [];
  for (let t = 0; t < WARM_TURNS; t++) steps.push(...turnSteps(t, 2));
  const [calls] = longTurnSteps(WARM_TURNS, 10);
  // Fatal: no automatic retry, the failure is recorded at once.
  steps.push(calls as Step, { fail: new ModelError('bad gateway', 'fatal', { status: 400 }) });
  const logDir = fs.mkdtempSync(join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'agentx-state-io-log-'));
  const h = harness(steps, [longOutputTool(LONG_OUTPUT_BYTES)], { log: new ConversationLog(join(logDir, 'project.log')) });
  const engine = new Engine(h.deps);
  const signal = new AbortController().signal;
  for (let t = 0; t < WARM_TURNS; t++) await engine.message(`question ${t}: why does the build fail on CI but not locally?`, [], signal);
  const outcome = await engine.message(`question ${WARM_TURNS}: and now?`, [], signal);
  if (h.store.state.pending_transaction === null) throw new Error(`the failing turn ended ${outcome.kind} without retry data`);
  const bytes = fs.statSync(h.store.path).size;
  fs.rmSync(h.dir, { recursive: true, force: true });
  fs.rmSync(logDir, { recursive: true, force: true });
  return bytes;
}

export interface StateIoResult {
  /** The state file while a failed follow-up of 10 × 32 KiB outputs waits for Retry. */
  failedFollowUpBytes: number;
  stateFileBytes: number;
  /** The same session after `/rollback 3`: what every later write rewrites until the next rollback or /clear. */
  rolledBackBytes: number;
  noCalls: TurnIo;
  tenCalls: TurnIo;
  /** 10 short commands with 32 KiB of output each. */
  tenLong: TurnIo;
}

export async function benchStateIo(): Promise<StateIoResult> {
  instrument();
  const noCalls = await measureTurn(0);
  const tenCalls = await measureTurn(10);
  const tenLong = await measureTurn(10, true);
  // The size of the file each write rewrites, at the end of the session.
  const steps: Step[] = [];
  for (let t = 0; t <= WARM_TURNS; t++) steps.push(...turnSteps(t, 2));
  const h = harness(steps, [echoTool([])]);
  const engine = new Engine(h.deps);
  for (let t = 0; t <= WARM_TURNS; t++) await engine.message(`question ${t}: why does the build fail on CI but not locally?`, [], new AbortController().signal);
  const stateFileBytes = fs.statSync(h.store.path).size;
  await engine.rollback(3);
  const rolledBackBytes = fs.statSync(h.store.path).size;
  fs.rmSync(h.dir, { recursive: true, force: true });
  return { stateFileBytes, rolledBackBytes, failedFollowUpBytes: await failedFollowUpBytes(), noCalls, tenCalls, tenLong };
}
