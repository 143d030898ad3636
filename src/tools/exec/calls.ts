// exec_command and write_stdin as the model sees them: Codex's unified exec shapes (the models
// are trained on them; docs/exec-sessions.md) and parsing of their arguments. The escalation
// fields are the shell tool's (permissions/escalation.ts): one schema, one parser.
import type { FunctionCallItem, ToolCallItem, ToolDefinition } from '../../wire/items.ts';
import { isRecord } from '../../lib/guards.ts';
import { ESCALATION_PARAMETERS, parseEscalationFields } from '../permissions/escalation.ts';
import type { ParseResult, ParsedCall } from '../tool.ts';

export const EXEC_COMMAND = 'exec_command';
export const WRITE_STDIN = 'write_stdin';

export interface ExecCommandCall extends ParsedCall {
  kind: 'exec';
  cmd: string;
  workdir: string | undefined;
  tty: boolean;
  yieldTimeMs: number | undefined;
  maxOutputTokens: number | undefined;
  /** "require_escalated": the model asks to run outside the sandbox (issue 24's question). */
  escalation: { justification: string | undefined; prefixRule: string[] | undefined } | undefined;
}

export interface WriteStdinCall extends ParsedCall {
  kind: 'write';
  sessionId: number;
  chars: string;
  yieldTimeMs: number | undefined;
  maxOutputTokens: number | undefined;
}

export function execDefinitions(): ToolDefinition[] {
  return [
    {
      type: 'function',
      name: EXEC_COMMAND,
      strict: false,
      description:
        'Runs a command (in a PTY with tty: true, otherwise with pipes), returning its output and exit code, or a session ID for ongoing interaction when it is still running after yield_time_ms. Use it for servers, watchers, REPLs, long test runs and commands that ask questions; poll or type with write_stdin.',
      parameters: {
        type: 'object',
        properties: {
          cmd: { type: 'string', description: 'Shell command line to run.' },
          workdir: { type: 'string', description: 'Directory to run in, relative to the working directory; default the working directory.' },
          tty: { type: 'boolean', description: 'Run in a pseudo-terminal (for programs that need one: REPLs, prompts, full-screen tools). Default false.' },
          yield_time_ms: { type: 'number', description: 'How long to wait for output before returning (default 10000, 250 to 30000).' },
          max_output_tokens: { type: 'number', description: 'Cap on the output tokens returned (default 10000).' },
          ...ESCALATION_PARAMETERS,
        },
        required: ['cmd'],
        additionalProperties: false,
      },
    },
    {
      type: 'function',
      name: WRITE_STDIN,
      strict: false,
      description:
        'Writes characters to an existing exec session and returns recent output. Empty chars polls (waits at least 5 s). Control characters work: "\\u0003" is Ctrl-C, "\\u0004" Ctrl-D (end of input).',
      parameters: {
        type: 'object',
        properties: {
          session_id: { type: 'number', description: 'The session ID exec_command returned.' },
          chars: { type: 'string', description: 'Characters to write (include "\\n" to press Enter); may be empty to poll.' },
          yield_time_ms: { type: 'number', description: 'How long to wait for output (default 250, 250 to 30000; an empty poll waits at least 5000).' },
          max_output_tokens: { type: 'number', description: 'Cap on the output tokens returned (default 10000).' },
        },
        required: ['session_id'],
        additionalProperties: false,
      },
    },
  ];
}

type Args = Record<string, unknown>;

function parseArgs(item: FunctionCallItem): Args | string {
  let value: unknown;
  try {
    value = JSON.parse(item.arguments);
  } catch (err) {
    return `invalid JSON arguments for "${item.name}": ${err instanceof Error ? err.message : String(err)}`;
  }
  return isRecord(value) ? value : `the arguments of "${item.name}" must be a JSON object`;
}

/** A number the model gave, or undefined when absent; an error text when it is not a number. */
function optionalNumber(a: Args, name: string): number | undefined | string {
  const v = a[name];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : `"${name}" must be a number`;
}

function optionalString(a: Args, name: string): string | undefined {
  const v = a[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function acceptsExec(item: ToolCallItem): boolean {
  return item.type === 'function_call' && (item.name === EXEC_COMMAND || item.name === WRITE_STDIN);
}

/** A display form of typed characters: control characters as \\uXXXX, bounded. */
export function shownChars(chars: string): string {
  const json = JSON.stringify(chars);
  return json.length > 80 ? `${json.slice(0, 77)}…"` : json;
}

export function parseExecCall(item: ToolCallItem): ParseResult<ExecCommandCall | WriteStdinCall> {
  if (item.type !== 'function_call') return { ok: false, callId: item.call_id, error: `exec sessions cannot answer a ${item.type}` };
  const a = parseArgs(item);
  if (typeof a === 'string') return { ok: false, callId: item.call_id, error: a };
  const yieldTimeMs = optionalNumber(a, 'yield_time_ms');
  const maxOutputTokens = optionalNumber(a, 'max_output_tokens');
  if (typeof yieldTimeMs === 'string') return { ok: false, callId: item.call_id, error: yieldTimeMs };
  if (typeof maxOutputTokens === 'string') return { ok: false, callId: item.call_id, error: maxOutputTokens };
  if (item.name === EXEC_COMMAND) {
    const cmd = a.cmd;
    if (typeof cmd !== 'string' || cmd.trim() === '') return { ok: false, callId: item.call_id, error: '"cmd" must be a non-empty string' };
    if (a.tty !== undefined && a.tty !== null && typeof a.tty !== 'boolean') return { ok: false, callId: item.call_id, error: '"tty" must be true or false' };
    // null is absent, as in the shell tool (strict schemas send null for an unused field).
    const escalation = parseEscalationFields(Object.fromEntries(Object.entries(a).filter(([, v]) => v !== null)));
    if (!escalation.ok) return { ok: false, callId: item.call_id, error: escalation.error };
    const fields = escalation.fields;
    return {
      ok: true,
      call: {
        kind: 'exec',
        callId: item.call_id,
        title: cmd,
        commands: [cmd],
        cmd,
        workdir: optionalString(a, 'workdir'),
        tty: a.tty === true,
        yieldTimeMs,
        maxOutputTokens,
        escalation: fields.sandboxPermissions === 'require_escalated' ? { justification: fields.justification, prefixRule: fields.prefixRule } : undefined,
        // The engine decides how it runs (mode, rules, the person) before it starts (engine/permissions.ts).
        permission: { commands: [cmd], fields },
      },
    };
  }
  const id = a.session_id;
  const sessionId = typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : NaN;
  if (!Number.isInteger(sessionId)) return { ok: false, callId: item.call_id, error: '"session_id" must be the number exec_command returned' };
  const chars = a.chars ?? '';
  if (typeof chars !== 'string') return { ok: false, callId: item.call_id, error: '"chars" must be a string' };
  return {
    ok: true,
    call: {
      kind: 'write',
      callId: item.call_id,
      title: `write_stdin ${sessionId} ${shownChars(chars)}`,
      commands: [],
      sessionId,
      chars,
      yieldTimeMs,
      maxOutputTokens,
    },
  };
}
