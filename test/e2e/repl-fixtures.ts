// Shared bits of the REPL pty tests: reading the session files and the emulator's request log.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type LoggedRequest } from '../emulator/server.ts';
import type { Sandbox } from './harness.ts';
import { spawnAgentx, type PtyRun } from './pty.ts';

export interface ReplSuite {
  /** The file's emulator (started before its tests, closed after them). */
  readonly emu: Emulator;
  /** Starts agentx in a pty; every session still running is killed after each test. */
  start: (...args: Parameters<typeof spawnAgentx>) => PtyRun;
}

/** The per-file setup every REPL test file shares: one emulator, sessions killed after each test. */
export function replSuite(): ReplSuite {
  let emu: Emulator | undefined;
  const running: PtyRun[] = [];
  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });
  afterEach(() => {
    for (const a of running.splice(0)) a.kill();
  });
  return {
    get emu(): Emulator {
      if (!emu) throw new Error('the emulator starts in beforeAll');
      return emu;
    },
    start: (...args) => {
      const a = spawnAgentx(...args);
      running.push(a);
      return a;
    },
  };
}

export interface StateFile {
  response_id: string | null;
  last_user_message: string | null;
  usage: { inputTokens: number; cachedTokens: number; outputTokens: number; reasoningTokens: number; turns: number };
  history: { response_id: string; user_preview: string; usage: StateFile['usage'] }[];
  pending_tool_calls: { call_id: string; status: string; output?: unknown }[];
  pending_cli_transcript: unknown[];
  /** `input_log` in place of `input` when the retry data holds a tool output or a long paste (kept in the conversation log). */
  pending_transaction: { input?: unknown[]; input_log?: { output_log?: string }[]; previous_response_id: string | null; tool_summaries?: string[] } | null;
  transcript: { role: string; text: string }[];
  failed_response: { error: string; code?: string } | null;
  interrupted_turn: { user_message: string } | null;
  /** The snapshots around files a turn changed that has no checkpoint yet (an interrupted or failed turn). */
  pending_files: { from: string; to: string } | null;
  rollback_backup: unknown;
  context_tokens: number;
  compaction: { mechanism: string; from_response_id: string | null } | null;
}

export function readState(sb: Sandbox): StateFile {
  return JSON.parse(readFileSync(join(sb.cwd, '.agentx_responseid'), 'utf8')) as StateFile;
}

type CheckpointFile = { response_id: string | null; source: string; usage: StateFile['usage'] };

export function readCheckpoint(sb: Sandbox): CheckpointFile {
  return JSON.parse(readFileSync(join(sb.cwd, '.agentx_checkpoint'), 'utf8')) as CheckpointFile;
}

export function stateExists(sb: Sandbox): boolean {
  return existsSync(join(sb.cwd, '.agentx_responseid'));
}

interface Body {
  input?: unknown[];
  previous_response_id?: string;
}

export function body(r: LoggedRequest | undefined): Body {
  return r?.body ?? {};
}

/** All input_text parts of the user messages of a request, joined. */
export function userText(r: LoggedRequest | undefined): string {
  const items = (body(r).input ?? []) as { role?: string; content?: { text?: string }[] }[];
  return items
    .filter((i) => i.role === 'user')
    .flatMap((i) => (i.content ?? []).map((c) => c.text ?? ''))
    .join('\n');
}

export function toolOutputs(r: LoggedRequest | undefined): { type: string; call_id: string; output: unknown }[] {
  const items = (body(r).input ?? []) as { type?: string; call_id?: string; output?: unknown }[];
  return items
    .filter((i) => i.type === 'shell_call_output' || i.type === 'function_call_output')
    .map((i) => ({ type: i.type ?? '', call_id: i.call_id ?? '', output: i.output }));
}

/** The REPL prompt `user@host:cwd> ` (no spaces in the test directories). */
export const PROMPT = /\S+@\S+:\S*> /;

/** Waits for the next prompt (the line editor is ready again). */
export async function prompt(a: PtyRun, timeoutMs?: number): Promise<void> {
  await a.waitFor(PROMPT, timeoutMs);
}

/** Sends a message and waits for the answer's usage line and the next prompt. */
export async function turn(a: PtyRun, message: string, answer: string | RegExp = /tokens: /): Promise<void> {
  a.line(message);
  await a.waitFor(answer);
  await prompt(a);
}
