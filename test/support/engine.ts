// Test support for the engine: a scripted model client (our ModelClient interface, answering
// from a queue of steps and recording every request) and a recording tool. Not used by the product.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelError } from '../../src/model/errors.ts';
import type { CompletedResponse, ModelClient, ModelEvent, ModelRequest } from '../../src/model/types.ts';
import { SessionStore, type Persistence } from '../../src/store/session-store.ts';
import { emptyState, type SessionState } from '../../src/store/state.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { AnyTool, ParsedCall, Tool, ToolContext, ToolResult } from '../../src/tools/tool.ts';
import { replayableOutput, type HostedItem, type ToolCallItem, type UrlCitation } from '../../src/wire/items.ts';
import type { ConversationLog } from '../../src/store/log/conversation-log.ts';
import { parseAutoCompact } from '../../src/engine/context.ts';
import { sessionConversation, type StoreSetting } from '../../src/engine/conversation.ts';
import type { AgentEvent } from '../../src/engine/events.ts';
import { inMemoryCapabilities, type ServerCapabilities } from '../../src/engine/server-capabilities.ts';
import { turnCompaction } from '../../src/engine/turn-compaction.ts';
import type { TurnDeps } from '../../src/engine/turn.ts';
import { Permissions } from '../../src/engine/permissions.ts';
import { QuestionChannel, type Decided, type PersonQuestion } from '../../src/engine/questions.ts';
import type { Answer, ApprovalMode } from '../../src/tools/permissions/escalation.ts';

export type Step =
  /** `hosted`: server-side items, streamed as added/done before the text; `citations` of the text. */
  | { text: string; calls?: ToolCallItem[]; hosted?: HostedItem[]; citations?: UrlCitation[] }
  | { fail: ModelError }
  /** Waits until the request is aborted (a hung server), then fails as the client would. */
  | { hang: true };

let responseCounter = 0;

export class ScriptedClient implements ModelClient {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly steps: Step[]) {}

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    this.requests.push(structuredClone(request));
    const step = this.steps.shift();
    if (step === undefined) throw new Error('the script has no step for this request');
    if ('fail' in step) throw step.fail;
    if ('hang' in step) {
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      throw new ModelError('request cancelled', 'aborted');
    }
    for (const item of step.hosted ?? []) {
      yield { type: 'hosted_item', phase: 'added', item };
      yield { type: 'hosted_item', phase: 'done', item };
    }
    if (step.text) yield { type: 'text_delta', delta: step.text };
    const response: CompletedResponse = {
      id: `resp_${++responseCounter}`,
      status: 'completed',
      text: step.text,
      toolCalls: step.calls ?? [],
      items: replayableOutput([
        ...(step.calls ?? []),
        ...(step.text ? [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: step.text }] }] : []),
      ]),
      usage: { inputTokens: 10, cachedTokens: 0, outputTokens: 5, reasoningTokens: 0 },
    };
    if (step.hosted) response.hosted = step.hosted;
    if (step.citations) response.citations = step.citations;
    yield { type: 'completed', response };
  }
}

export interface EchoCall extends ParsedCall {
  text: string;
}

/** A function tool `echo({"text"})` that records each run; `onRun` can interfere (abort, break the disk). */
export function echoTool(runs: string[], onRun?: (call: EchoCall, ctx: ToolContext) => void): Tool<EchoCall> {
  return {
    name: 'echo',
    writes: true,
    definitions: () => [{ type: 'function', name: 'echo', description: 'echo', strict: false, parameters: { type: 'object' } }],
    accepts: (item) => item.type === 'function_call' && item.name === 'echo',
    parse(item) {
      if (item.type !== 'function_call') return { ok: false, callId: item.call_id, error: 'not a function call' };
      const args: unknown = JSON.parse(item.arguments);
      const text = typeof args === 'object' && args !== null && 'text' in args && typeof args.text === 'string' ? args.text : undefined;
      if (text === undefined) return { ok: false, callId: item.call_id, error: '"text" must be a string' };
      return { ok: true, call: { callId: item.call_id, title: `echo ${text}`, commands: [], text } };
    },
    run(call, ctx): Promise<ToolResult> {
      runs.push(call.text);
      onRun?.(call, ctx);
      return Promise.resolve({
        reply: { ok: true, text: `echo: ${call.text}` },
        summary: [`echo ${call.text}`],
        interrupted: ctx.signal.aborted,
      });
    },
  };
}

export function echoCall(callId: string, text: string): ToolCallItem {
  return { type: 'function_call', call_id: callId, name: 'echo', arguments: JSON.stringify({ text }) };
}

export interface Harness {
  deps: TurnDeps;
  client: ScriptedClient;
  store: SessionStore;
  events: AgentEvent[];
  warnings: string[];
  dir: string;
}

export interface HarnessOptions {
  persistence?: Persistence;
  initial?: SessionState;
  /** AGENTX_CONTEXT_WINDOW and AGENTX_AUTO_COMPACT as a person would set them. */
  contextWindow?: string;
  autoCompact?: string;
  capabilities?: ServerCapabilities;
  /** A conversation log (a real file); none: replays fall back to the state file's context. */
  log?: ConversationLog;
  store?: StoreSetting;
}

export function harness(steps: Step[], tools: AnyTool[], opts: HarnessOptions = {}): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'agentx-engine-'));
  const warnings: string[] = [];
  const store = new SessionStore({
    dir,
    path: join(dir, '.agentx_responseid'),
    initial: opts.initial ?? emptyState(),
    persistence: opts.persistence ?? 'durable',
    publishesCheckpoint: true,
    warn: (m) => warnings.push(m),
    // As the REPL does: completed tool outputs are kept in the log, the state file points at them.
    ...(opts.log !== undefined ? { outputLog: opts.log } : {}),
  });
  const client = new ScriptedClient(steps);
  const events: AgentEvent[] = [];
  const capabilities = inMemoryCapabilities(opts.capabilities);
  const deps: TurnDeps = {
    client,
    shape: { model: 'gpt-test', instructions: 'be brief', reasoningEffort: undefined },
    registry: new ToolRegistry(tools),
    session: store,
    cwd: () => dir,
    workspaceRoot: dir,
    emit: (ev) => events.push(ev),
    policy: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    sleep: () => Promise.resolve(),
    now: () => new Date('2026-01-01T00:00:00Z'),
    random: () => 0.5,
    compaction: turnCompaction(() => deps, {
      windowSetting: opts.contextWindow,
      autoCompact: parseAutoCompact(opts.autoCompact),
      capabilities,
    }),
    conversation: sessionConversation(() => deps, { log: opts.log, setting: opts.store ?? 'auto', capabilities }),
  };
  return { deps, client, store, events, warnings, dir };
}

/**
 * The question channel (engine/questions.ts) with a scripted person: each question is recorded
 * (`asked`), then answered by `answer` (default: the next of `answers`, then no). Events go to
 * the harness's list, as the front-end's emit would carry them.
 */
export function scriptedPerson(h: Harness, answers: Answer[] = [], answer?: (question: PersonQuestion) => Decided): PersonQuestion[] {
  const asked: PersonQuestion[] = [];
  const queue = [...answers];
  h.deps.questions = new QuestionChannel(h.deps.emit, (question) => {
    asked.push(question);
    return Promise.resolve(answer?.(question) ?? { answer: queue.shift() ?? { kind: 'no' }, decidedBy: 'person' });
  });
  return asked;
}

/** Permissions in `mode` with no rules (the person's rules file in the harness's directory). */
export function permissionsIn(h: Harness, mode: ApprovalMode): Permissions {
  const permissions = new Permissions({ mode, rules: [], unsandboxed: false, planMode: false, userRulesPath: join(h.dir, 'rules.json') });
  h.deps.permissions = permissions;
  return permissions;
}
