// One MCP tool call as the engine sees it: the record to journal before sending, the display
// line, and the run itself (timeout, Ctrl-C, the server dying) ending in the text of a
// `function_call_output`. Failures are outputs for the model, never exceptions.
import type { CallToolResult } from '@modelcontextprotocol/client';
import { oneLine } from './connection.ts';
import { redactUrls } from '../../lib/display-url.ts';
import type { LocalImagePart } from '../../wire/items.ts';
import type { ImageLimits } from './images.ts';
import type { ProgressReport } from './progress.ts';
import { resultToContent } from './result.ts';
import { clipChars, durationText } from '../../lib/text.ts';

/** What the journal's `started` record holds for an MCP call: enough to show it and to resend it. */
export interface McpCallRecord {
  kind: 'mcp';
  server: string;
  tool: string;
  /** The arguments exactly as the model sent them (JSON text). */
  arguments: string;
}

/** Shown with a pending MCP call after a crash: Retry resends it, which may do the work twice. */
export const MCP_RETRY_NOTICE =
  'MCP calls may not be idempotent: Retry sends the call to the server again. Choose it only if the call had no effect or you know it did not run.';

export type McpCallStatus =
  | 'ok' // the tool ran and answered
  | 'tool_error' // the tool ran and reported an error (isError)
  | 'failed' // the request failed: server gone, protocol error
  | 'timeout' // no answer in time; the server was sent a cancellation
  | 'interrupted' // aborted by the person; the server was sent a cancellation
  | 'not_sent'; // never reached the server: unknown tool, bad arguments, server not ready

export interface McpCallOutcome {
  status: McpCallStatus;
  /** The text of the function_call_output. */
  output: string;
  /** Images the tool returned, kept for the model (sent after the text, inside the same output). */
  images: LocalImagePart[];
  cutBytes: number;
  durationMs: number;
}

export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** The model sends arguments as JSON text; MCP wants an object. Empty text means no arguments. */
export function parseArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `arguments are not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'arguments must be a JSON object' };
  return { ok: true, value: Object.fromEntries(Object.entries(value)) };
}

const DISPLAY_ARGS_CHARS = 120;

/** One line for the terminal: `server › tool {"a":1}` with the arguments cut to fit. */
export function displayLine(record: Pick<McpCallRecord, 'server' | 'tool' | 'arguments'>): string {
  const parsed = parseArguments(record.arguments);
  const args = oneLine(parsed.ok ? JSON.stringify(parsed.value) : record.arguments);
  const shown = args === '{}' ? '' : ` ${args.length <= DISPLAY_ARGS_CHARS ? args : clipChars(args, DISPLAY_ARGS_CHARS)}`;
  return `${record.server} › ${record.tool}${shown}`;
}

function errorCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}

function errorMessage(err: unknown): string {
  // An HTTP server's failure may quote its URL, whose query may hold a key.
  return oneLine(redactUrls(err instanceof Error ? err.message : String(err)));
}

/** What the connection is asked to do with one call (connection.ts callTool). */
export interface SendOptions {
  signal?: AbortSignal;
  /** Without an answer or a progress report for this long, the call times out. */
  timeoutMs: number;
  onProgress: (report: ProgressReport) => void;
}

export interface RunContext {
  server: string;
  tool: string;
  signal?: AbortSignal;
  /** The tool timeout: it starts again with each progress report the server sends. */
  timeoutMs: number;
  /** However much progress is reported, the call ends after this long. */
  totalTimeoutMs: number;
  /** The server's progress reports, as they come (not checked: progress.ts does that). */
  onProgress?: (report: ProgressReport) => void;
  maxOutputBytes: number;
  /** Where images are kept and how large one may be; undefined: images become notes. */
  imageLimits?: ImageLimits;
  /** Why the server cannot take the call now, if it cannot (then nothing is sent). */
  unavailable?: string;
  /** Reason given when the server went away during the call. */
  serverError: () => string | undefined;
  send: (args: Record<string, unknown>, options: SendOptions) => Promise<CallToolResult>;
}

/** How the call went, for the words of a failure. */
interface CallFacts {
  /** The total cap ended it (progress kept the tool timeout from doing so). */
  overTotal: boolean;
  progressReports: number;
}

function failureOutcome(err: unknown, ctx: RunContext, facts: CallFacts): Pick<McpCallOutcome, 'status' | 'output'> {
  const where = `MCP tool ${ctx.tool} on server ${ctx.server}`;
  if (ctx.signal?.aborted) return { status: 'interrupted', output: `${where}: interrupted by the user; the server was asked to cancel the call.` };
  if (facts.overTotal) {
    return {
      status: 'timeout',
      output: `${where}: still running after ${durationText(ctx.totalTimeoutMs)}, the most a call may take however much progress it reports; the server was asked to cancel the call.`,
    };
  }
  const code = errorCode(err);
  if (code === 'REQUEST_TIMEOUT') {
    const silence =
      facts.progressReports === 0 ? `no answer within ${durationText(ctx.timeoutMs)}` : `no answer and no progress for ${durationText(ctx.timeoutMs)}`;
    return { status: 'timeout', output: `${where}: ${silence}; the server was asked to cancel the call.` };
  }
  if (code === 'CONNECTION_CLOSED' || code === 'NOT_CONNECTED') {
    const why = ctx.serverError();
    return { status: 'failed', output: `${where}: the server went away during the call${why ? ` (${why})` : ''}; it may or may not have run.` };
  }
  // A JSON-RPC error from the server (unknown tool, invalid params, its own failure).
  if (typeof code === 'number') return { status: 'failed', output: `${where}: error ${code}: ${errorMessage(err)}` };
  return { status: 'failed', output: `${where}: ${errorMessage(err)}` };
}

export async function runMcpCall(argsJson: string, ctx: RunContext): Promise<McpCallOutcome> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const notSent = (why: string): McpCallOutcome => ({
    status: 'not_sent',
    output: `MCP tool ${ctx.tool} on server ${ctx.server}: ${why}`,
    images: [],
    cutBytes: 0,
    durationMs: elapsed(),
  });
  const args = parseArguments(argsJson);
  if (!args.ok) return notSent(args.error);
  if (ctx.unavailable !== undefined) return notSent(`not called: ${ctx.unavailable}`);
  if (ctx.signal?.aborted)
    return {
      status: 'interrupted',
      output: `MCP tool ${ctx.tool} on server ${ctx.server}: interrupted before it was sent.`,
      images: [],
      cutBytes: 0,
      durationMs: 0,
    };
  // The total cap is our own timer, not the SDK's `maxTotalTimeout`: the SDK checks that only
  // when a progress report arrives, and then fails the call without telling the server, which
  // would go on working. Aborting goes through the SDK's cancel path, which sends
  // notifications/cancelled like Ctrl-C and the tool timeout do.
  const overTotal = new AbortController();
  const totalTimer = setTimeout(() => overTotal.abort(), ctx.totalTimeoutMs);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, overTotal.signal]) : overTotal.signal;
  const facts: CallFacts = { overTotal: false, progressReports: 0 };
  const onProgress = (report: ProgressReport): void => {
    facts.progressReports++;
    ctx.onProgress?.(report);
  };
  try {
    const result = await ctx.send(args.value, { signal, timeoutMs: ctx.timeoutMs, onProgress });
    const content = await resultToContent(result, ctx.maxOutputBytes, ctx.imageLimits);
    return { status: content.isError ? 'tool_error' : 'ok', output: content.text, images: content.images, cutBytes: content.cutBytes, durationMs: elapsed() };
  } catch (err) {
    facts.overTotal = overTotal.signal.aborted && !(ctx.signal?.aborted ?? false);
    return { ...failureOutcome(err, ctx, facts), images: [], cutBytes: 0, durationMs: elapsed() };
  } finally {
    clearTimeout(totalTimer);
  }
}

/** The fields of a `--json` event for a finished MCP call (snake_case, like the other events). */
export function callEventFields(record: McpCallRecord, outcome: McpCallOutcome): Record<string, string | number | boolean> {
  return {
    server: record.server,
    tool: record.tool,
    arguments: record.arguments,
    status: outcome.status,
    is_error: outcome.status !== 'ok',
    duration_ms: outcome.durationMs,
    output_bytes: Buffer.byteLength(outcome.output, 'utf8'),
    truncated_bytes: outcome.cutBytes,
  };
}
