// A long session driven through the real engine (src/engine/engine.ts, its turn loop and the
// compaction it is wired with) with the real client against the emulator over HTTP, and a real
// session store in a temp directory. Shared by the engine's compaction tests and
// bench/compaction.mjs; the REPL in a pty is tested the same way in test/e2e/compaction.test.ts.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type TurnOutcome } from '../../src/engine/engine.ts';
import { parseAutoCompact } from '../../src/engine/context.ts';
import { sessionConversation, type StoreSetting } from '../../src/engine/conversation.ts';
import { ConversationLog } from '../../src/store/log/conversation-log.ts';
import { inMemoryCapabilities, type CapabilityMemory, type ServerCapabilities } from '../../src/engine/server-capabilities.ts';
import { turnCompaction } from '../../src/engine/turn-compaction.ts';
import type { TurnDeps } from '../../src/engine/turn.ts';
import type { AgentEvent } from '../../src/engine/events.ts';
import { createOpenAIClient } from '../../src/model/client.ts';
import type { ModelClient } from '../../src/model/types.ts';
import { SessionStore } from '../../src/store/session-store.ts';
import { loadState } from '../../src/store/store.ts';
import { emptyState, type CompactionCheckpoint } from '../../src/store/state.ts';
import type { EnvironmentFacts } from '../../src/engine/environment.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ParsedCall, Tool } from '../../src/tools/tool.ts';

export const AGENTS_RULE = 'remember RULE=tabs-not-spaces';
export const INSTRUCTIONS = `You are a test agent.\n# Instructions from /project/AGENTS.md\nAlways ${AGENTS_RULE}. Keep answers short.`;

/**
 * The shell function as the model sees it, answering every call with `bytes` of output without
 * running anything: the context grows as it would with real command output, deterministically.
 */
/** Commands of a call's JSON arguments (`{"commands": [...]}`), or none. */
function commandsOf(args: string): string[] {
  try {
    const parsed: unknown = JSON.parse(args);
    const list = typeof parsed === 'object' && parsed !== null && 'commands' in parsed ? parsed.commands : undefined;
    return Array.isArray(list) ? list.filter((c): c is string => typeof c === 'string') : [];
  } catch {
    return [];
  }
}

/** A shell tool that runs nothing: it answers with filler and, given `ranFile`, appends each call's commands there (one line a run). */
export function fillerShellTool(bytes: number, ranFile?: string): Tool {
  return {
    name: 'shell',
    writes: false,
    definitions: () => [
      {
        type: 'function',
        name: 'shell',
        description: 'Runs shell commands.',
        strict: false,
        parameters: { type: 'object', properties: { commands: { type: 'array', items: { type: 'string' } } } },
      },
    ],
    accepts: (item) => item.type === 'function_call' && item.name === 'shell',
    parse: (item) => ({ ok: true, call: { callId: item.call_id, title: 'shell', commands: item.type === 'function_call' ? commandsOf(item.arguments) : [] } }),
    run: (call: ParsedCall) => {
      if (ranFile !== undefined) appendFileSync(ranFile, `${call.commands.join('; ')}\n`);
      return Promise.resolve({
        reply: { ok: true, text: `tool output for ${call.callId}\n${'o'.repeat(bytes)}` },
        summary: [`ran ${call.callId}`],
        interrupted: false,
      });
    },
  };
}

export interface SessionOptions {
  baseUrl: string;
  /** AGENTX_CONTEXT_WINDOW and AGENTX_AUTO_COMPACT, as a person sets them. */
  contextWindow: string;
  autoCompact?: string;
  /** What the server is already known to support (skips the probes), or a file-backed memory. */
  capabilities?: ServerCapabilities;
  memory?: CapabilityMemory;
  toolOutputBytes?: number;
  client?: ModelClient;
  /** AGENTX_STORE as a person sets it (default auto). */
  store?: StoreSetting;
  /** Start again in this session's directory (a restart: its state file and conversation log). */
  dir?: string;
  /** The environment context's facts (engine/environment.ts); absent: none is sent. */
  environment?: () => EnvironmentFacts;
}

export interface Session {
  readonly engine: Engine;
  readonly dir: string;
  readonly store: SessionStore;
  /** Every compaction, as recorded in the state at the time. */
  readonly checkpoints: CompactionCheckpoint[];
  /** Context notices and failures shown to the person. */
  readonly notices: string[];
  /** One turn; a failed or interrupted one throws (a long session must never show one). */
  turn(text: string): Promise<string>;
  /** One turn, whatever its outcome. */
  send(text: string): Promise<TurnOutcome>;
  close(): void;
}

export async function startSession(opts: SessionOptions): Promise<Session> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'agentx-compaction-'));
  const client = opts.client ?? (await createOpenAIClient({ apiKey: 'sk-test', baseUrl: opts.baseUrl, idleTimeoutMs: 10_000 }));
  const store = new SessionStore({
    dir,
    path: join(dir, '.agentx_responseid'),
    initial: opts.dir === undefined ? emptyState() : loadState(join(dir, '.agentx_responseid'), new Date()).state,
    persistence: 'fast',
    publishesCheckpoint: true,
    warn: (m) => {
      throw new Error(`session store: ${m}`);
    },
  });
  const capabilities = opts.memory ?? inMemoryCapabilities(opts.capabilities);
  const checkpoints: CompactionCheckpoint[] = [];
  const notices: string[] = [];
  const emit = (ev: AgentEvent): void => {
    if (ev.type === 'context_notice') notices.push(ev.message);
    if (ev.type === 'turn_failed') notices.push(`failed: ${ev.message}`);
    if (ev.type === 'context_compacted' && store.state.compaction) checkpoints.push(store.state.compaction);
  };
  const deps: TurnDeps = {
    client,
    shape: { model: 'gpt-5', instructions: INSTRUCTIONS, reasoningEffort: undefined },
    registry: new ToolRegistry([fillerShellTool(opts.toolOutputBytes ?? 800, join(dir, 'ran.txt'))]),
    session: store,
    cwd: () => dir,
    workspaceRoot: dir,
    emit,
    policy: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    compaction: turnCompaction(() => deps, {
      windowSetting: opts.contextWindow,
      autoCompact: parseAutoCompact(opts.autoCompact),
      capabilities,
    }),
    conversation: sessionConversation(() => deps, { log: new ConversationLog(join(dir, 'conversation.log')), setting: opts.store ?? 'auto', capabilities }),
    sleep: () => Promise.resolve(),
    now: () => new Date(),
    random: () => 0.5,
    ...(opts.environment === undefined ? {} : { environment: opts.environment }),
  };
  const engine = new Engine(deps);
  const signal = new AbortController().signal;
  const send = (text: string): Promise<TurnOutcome> => engine.message(text, [], signal);
  return {
    engine,
    dir,
    store,
    checkpoints,
    notices,
    send,
    async turn(text) {
      const outcome = await send(text);
      if (outcome.kind !== 'done')
        throw new Error(`turn "${text.slice(0, 60)}" ${outcome.kind === 'failed' ? `failed: ${outcome.failure.message}` : 'was interrupted'}`);
      return outcome.result.text;
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The scripted message of turn i of a long session: facts, tool runs, chatter of varying length. */
export function scriptedMessage(i: number): string {
  if (i % 10 === 0) return `remember K${i}=v${i * 7}`;
  if (i % 7 === 3) return `run: echo step ${i}`;
  const words = 20 + ((i * 37) % 120);
  return `note ${i}: ${Array.from({ length: words }, (_, w) => `w${(w * i) % 97}`).join(' ')}`;
}

export const factKeys = (turns: number): string[] => Array.from({ length: Math.ceil(turns / 10) }, (_, k) => `K${k * 10}`);
export const factValue = (key: string): string => `v${Number(key.slice(1)) * 7}`;
