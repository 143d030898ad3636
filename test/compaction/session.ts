// A scripted long session driven through the compaction driver with the real client against the
// emulator over HTTP: the smallest honest stand-in for the turn loop (state transitions, tool
// rounds, chainStart after a compaction). Shared by the driver's tests and bench/compaction.mjs.
import { createOpenAIClient } from '../../src/model/client.ts';
import type { CompletedResponse, ModelClient, ModelRequest } from '../../src/model/types.ts';
import { createCompaction, type Compaction } from '../../src/engine/compaction.ts';
import { chainStart, withCompaction, type CompactionCheckpoint } from '../../src/engine/compaction-seed.ts';
import { parseAutoCompact, type ContextWindow } from '../../src/engine/context.ts';
import { inMemoryCapabilities, type CapabilityMemory, type ServerCapabilities } from '../../src/engine/server-capabilities.ts';

export const AGENTS_RULE = 'remember RULE=tabs-not-spaces';
export const INSTRUCTIONS = `You are a test agent.\n# Instructions from /project/AGENTS.md\nAlways ${AGENTS_RULE}. Keep answers short.`;
export const TOOLS: unknown[] = [{
  type: 'function', name: 'shell', strict: false,
  parameters: { type: 'object', properties: { commands: { type: 'array', items: { type: 'string' } } } },
}];

export interface SessionState {
  response_id: string | null;
  transcript: { role: string; text: string }[];
  context_tokens: number;
  compaction?: CompactionCheckpoint;
  [key: string]: unknown;
}

export interface TurnOutcome {
  text: string;
  requests: number;
}

export interface Session {
  readonly state: SessionState;
  readonly compaction: Compaction;
  readonly checkpoints: CompactionCheckpoint[];
  readonly notices: string[];
  /** One turn: the message, and tool rounds (each call answered with `toolOutputBytes` of output). */
  turn(text: string): Promise<TurnOutcome>;
}

export interface SessionOptions {
  baseUrl: string;
  window: ContextWindow;
  autoCompact?: string;
  capabilities?: ServerCapabilities;
  memory?: CapabilityMemory;
  toolOutputBytes?: number;
  client?: ModelClient;
}

const message = (text: string): unknown => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

async function complete(client: ModelClient, request: ModelRequest, signal: AbortSignal): Promise<CompletedResponse> {
  for await (const ev of client.stream(request, signal)) if (ev.type === 'completed') return ev.response;
  throw new Error('no completed response');
}

export async function startSession(opts: SessionOptions): Promise<Session> {
  const client = opts.client ?? (await createOpenAIClient({ apiKey: 'sk-test', baseUrl: opts.baseUrl, idleTimeoutMs: 10_000 }));
  const state: SessionState = { response_id: null, transcript: [], context_tokens: 0 };
  const checkpoints: CompactionCheckpoint[] = [];
  const notices: string[] = [];
  let sent = 0;
  const compaction = createCompaction({
    client,
    shape: { model: 'gpt-5', instructions: INSTRUCTIONS, tools: TOOLS, reasoningEffort: undefined },
    window: opts.window,
    autoCompact: parseAutoCompact(opts.autoCompact),
    capabilities: opts.memory ?? inMemoryCapabilities(opts.capabilities),
    state: () => state,
    usedTokens: () => state.context_tokens,
    send: (request, signal) => {
      sent++;
      return complete(client, request, signal);
    },
    onCompacted: (checkpoint) => {
      checkpoints.push(checkpoint);
      Object.assign(state, withCompaction(state, checkpoint));
    },
    notice: (text) => notices.push(text),
    now: () => new Date(),
  });

  async function turn(text: string): Promise<TurnOutcome> {
    const signal = new AbortController().signal;
    const before = sent;
    let attempt = chainStart(state, [message(text)]);
    state.transcript.push({ role: 'user', text });
    for (let round = 0; round < 5; round++) {
      const result = await compaction.send(attempt, signal);
      state.response_id = result.response.id;
      state.context_tokens = result.contextTokens;
      const calls = result.response.toolCalls;
      if (calls.length === 0) {
        state.transcript.push({ role: 'assistant', text: result.response.text });
        return { text: result.response.text, requests: sent - before };
      }
      const outputs = calls.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: `tool output for ${c.call_id}\n${'o'.repeat(opts.toolOutputBytes ?? 800)}` }));
      state.transcript.push({ role: 'tool', text: `ran ${calls.length} call(s)` });
      attempt = { input: outputs, previousResponseId: result.response.id };
    }
    throw new Error('too many tool rounds');
  }

  return { state, compaction, checkpoints, notices, turn };
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
