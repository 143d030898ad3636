// The shell tool: the model runs command lines on the person's machine. Offered as the built-in
// `shell` tool (shell_call → shell_call_output) or, for servers without it, as a JSON function
// named "shell" (function_call → function_call_output). Execution is runShellCommand (shell.ts).
import { isAbsolute, resolve } from 'node:path';
import type { ShellCallOutputItem, ToolCallItem, ToolDefinition, ToolOutputItem } from '../wire/items.ts';
import type { ShellRunOptions, ShellRunResult } from './shell.ts';
import type { CommandResultInfo, ParseResult, ParsedCall, Tool, ToolContext, ToolResult } from './tool.ts';

export const SHELL_FUNCTION_NAME = 'shell';
export type ShellToolForm = 'builtin' | 'function';

export interface ShellCall extends ParsedCall {
  form: ShellToolForm;
  timeoutMs: number | undefined;
  maxOutput: number | undefined;
  workdir: string | undefined;
}

export interface ShellToolOptions {
  form: ShellToolForm;
  runCommand(opts: ShellRunOptions): Promise<ShellRunResult>;
  defaultTimeoutMs: number;
  defaultMaxOutputBytes: number;
}

function asPositiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((c): c is string => typeof c === 'string') ? v : undefined;
}

function shellCall(callId: string, form: ShellToolForm, commands: string[], extra: Partial<ShellCall> = {}): ShellCall {
  return { callId, form, commands, title: commands.join(' && '), timeoutMs: undefined, maxOutput: undefined, workdir: undefined, ...extra };
}

export function parseShellCall(item: ToolCallItem): ParseResult<ShellCall> {
  if (item.type === 'shell_call') {
    const commands = (stringList(item.action.commands) ?? []).filter((c) => c.length > 0);
    if (commands.length === 0) return { ok: false, callId: item.call_id, error: 'the shell call has no commands' };
    return {
      ok: true,
      call: shellCall(item.call_id, 'builtin', commands, { timeoutMs: asPositiveInt(item.action.timeout_ms), maxOutput: asPositiveInt(item.action.max_output_length) }),
    };
  }
  if (item.type !== 'function_call') return { ok: false, callId: item.call_id, error: `the shell tool cannot answer a ${item.type}` };
  let args: unknown;
  try {
    args = JSON.parse(item.arguments);
  } catch (err) {
    return { ok: false, callId: item.call_id, error: `invalid JSON arguments for "${item.name}": ${err instanceof Error ? err.message : String(err)}` };
  }
  const a: Record<string, unknown> = typeof args === 'object' && args !== null ? { ...args } : {};
  const commands = stringList(a.commands);
  if (commands === undefined || commands.length === 0) return { ok: false, callId: item.call_id, error: '"commands" must be a non-empty array of strings' };
  return {
    ok: true,
    call: shellCall(item.call_id, 'function', commands, {
      timeoutMs: asPositiveInt(a.timeout_ms),
      workdir: typeof a.workdir === 'string' && a.workdir.length > 0 ? a.workdir : undefined,
    }),
  };
}

export function shellDefinitions(form: ShellToolForm): ToolDefinition[] {
  if (form === 'builtin') return [{ type: 'shell', environment: { type: 'local' } }];
  return [{
    type: 'function',
    name: SHELL_FUNCTION_NAME,
    description: 'Run shell commands in the user\'s working directory. Each command runs in a fresh shell; output is capped.',
    strict: true,
    parameters: {
      type: 'object',
      properties: {
        commands: { type: 'array', items: { type: 'string' }, description: 'Command lines to run in order.' },
        timeout_ms: { type: ['integer', 'null'], description: 'Timeout per command in milliseconds (default 120000).' },
        workdir: { type: ['string', 'null'], description: 'Directory to run in, relative to the working directory.' },
      },
      required: ['commands', 'timeout_ms', 'workdir'],
      additionalProperties: false,
    },
  }];
}

export function describeResult(r: CommandResultInfo): string {
  if (r.backgroundSession !== undefined) return `running as exec session ${r.backgroundSession}`;
  if (r.interrupted) return 'interrupted by the user';
  if (r.timedOut) return 'timed out';
  return `exit ${r.exitCode ?? 'signal'}`;
}

/** The output item for a call whose commands ran (all, or until one was interrupted). */
export function shellOutputItem(call: ShellCall, results: CommandResultInfo[]): ToolOutputItem {
  if (call.form === 'builtin') {
    const item: ShellCallOutputItem = {
      type: 'shell_call_output',
      call_id: call.callId,
      output: results.map((r) => ({
        stdout: r.stdout,
        stderr: r.interrupted ? `${r.stderr}${r.stderr && !r.stderr.endsWith('\n') ? '\n' : ''}[interrupted by the user]` : r.stderr,
        outcome: r.timedOut ? { type: 'timeout' } : { type: 'exit', exit_code: r.exitCode ?? (r.interrupted ? 130 : 1) },
      })),
    };
    if (call.maxOutput) item.max_output_length = call.maxOutput;
    return item;
  }
  const text = results.map((r) => {
    const lines = [`$ ${r.command}`, `[${describeResult(r)}, ${r.durationMs} ms]`];
    if (r.stdout) lines.push(r.stdout.replace(/\n$/, ''));
    if (r.stderr) lines.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
    return lines.join('\n');
  }).join('\n\n');
  return { type: 'function_call_output', call_id: call.callId, output: text };
}

/** Short lines for the local transcript (new-chain context). */
export function summarizeResults(results: CommandResultInfo[]): string[] {
  return results.map((r) => {
    const out = (r.stdout + (r.stderr ? `\n${r.stderr}` : '')).trim().slice(0, 400);
    return `$ ${r.command} → ${describeResult(r)}${out ? `\n${out}` : ''}`;
  });
}

export function createShellTool(opts: ShellToolOptions): Tool<ShellCall> {
  async function run(call: ShellCall, ctx: ToolContext): Promise<ToolResult> {
    const results: CommandResultInfo[] = [];
    const cwd = call.workdir ? (isAbsolute(call.workdir) ? call.workdir : resolve(ctx.cwd, call.workdir)) : ctx.cwd;
    for (const command of call.commands) {
      ctx.progress({ type: 'command_start', callId: call.callId, command });
      const r = await opts.runCommand({
        command, cwd, signal: ctx.signal,
        timeoutMs: call.timeoutMs ?? opts.defaultTimeoutMs,
        maxOutputBytes: call.maxOutput ?? opts.defaultMaxOutputBytes,
        onOutput: (chunk, stream) => ctx.progress({ type: 'command_output', callId: call.callId, chunk, stream }),
      });
      const info: CommandResultInfo = {
        callId: call.callId, command, exitCode: r.exitCode, timedOut: r.timedOut, interrupted: r.interrupted,
        durationMs: r.durationMs, truncatedBytes: r.truncatedBytes, stdout: r.stdout, stderr: r.stderr,
      };
      ctx.progress({ type: 'command_done', ...info });
      results.push(info);
      if (r.interrupted) break;
    }
    return { output: shellOutputItem(call, results), summary: summarizeResults(results), interrupted: results.some((r) => r.interrupted) };
  }

  return {
    name: 'shell',
    writes: true,
    definitions: () => shellDefinitions(opts.form),
    accepts: (item) => item.type === 'shell_call' || (item.type === 'function_call' && item.name === SHELL_FUNCTION_NAME),
    parse: parseShellCall,
    run,
  };
}
