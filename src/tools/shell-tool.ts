// The shell tool: the model runs command lines on the person's machine. Offered as the built-in
// `shell` tool (shell_call → shell_call_output) or, for servers without it, as a JSON function
// named "shell" (function_call → function_call_output). Execution is runShellCommand (shell.ts).
import { isAbsolute, resolve } from 'node:path';
import type { ShellOutputChunk, ToolCallItem, ToolDefinition } from '../wire/items.ts';
import { ESCALATION_PARAMETERS, parseEscalationFields, type EscalationFields, type RunScope } from './permissions/escalation.ts';
import type { ModelRunOptions, SandboxedRunResult } from './sandboxed.ts';
import type { CommandResultInfo, ParseResult, ParsedCall, Tool, ToolContext, ToolResult } from './tool.ts';
import type { ToolReply } from './wire-output.ts';

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
  runCommand(opts: ModelRunOptions): Promise<SandboxedRunResult>;
  defaultTimeoutMs: number;
  defaultMaxOutputBytes: number;
}

function asPositiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((c): c is string => typeof c === 'string') ? v : undefined;
}

const DEFAULT_FIELDS: EscalationFields = { sandboxPermissions: 'use_default', justification: undefined, prefixRule: undefined };

function shellCall(callId: string, form: ShellToolForm, commands: string[], extra: Partial<ShellCall> = {}, fields = DEFAULT_FIELDS): ShellCall {
  // Every shell call is decided by the engine (mode, rules, the person) before it runs.
  return {
    callId,
    form,
    commands,
    title: commands.join(' && '),
    timeoutMs: undefined,
    maxOutput: undefined,
    workdir: undefined,
    permission: { commands, fields },
    ...extra,
  };
}

/** Strict function schemas need every property required: the escalation fields may be null. */
const NULLABLE_ESCALATION = {
  sandbox_permissions: {
    ...ESCALATION_PARAMETERS.sandbox_permissions,
    type: ['string', 'null'],
    enum: [...ESCALATION_PARAMETERS.sandbox_permissions.enum, null],
  },
  justification: { ...ESCALATION_PARAMETERS.justification, type: ['string', 'null'] },
  prefix_rule: { ...ESCALATION_PARAMETERS.prefix_rule, type: ['array', 'null'] },
};

export function parseShellCall(item: ToolCallItem): ParseResult<ShellCall> {
  if (item.type === 'shell_call') {
    const commands = (stringList(item.action.commands) ?? []).filter((c) => c.length > 0);
    if (commands.length === 0) return { ok: false, callId: item.call_id, error: 'the shell call has no commands' };
    return {
      ok: true,
      call: shellCall(item.call_id, 'builtin', commands, {
        timeoutMs: asPositiveInt(item.action.timeout_ms),
        maxOutput: asPositiveInt(item.action.max_output_length),
      }),
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
  // null is "not given" (strict schemas send every field).
  const escalation = parseEscalationFields(Object.fromEntries(Object.entries(a).filter(([, v]) => v !== null)));
  if (!escalation.ok) return { ok: false, callId: item.call_id, error: escalation.error };
  return {
    ok: true,
    call: shellCall(
      item.call_id,
      'function',
      commands,
      {
        timeoutMs: asPositiveInt(a.timeout_ms),
        workdir: typeof a.workdir === 'string' && a.workdir.length > 0 ? a.workdir : undefined,
      },
      escalation.fields,
    ),
  };
}

export function shellDefinitions(form: ShellToolForm): ToolDefinition[] {
  if (form === 'builtin') return [{ type: 'shell', environment: { type: 'local' } }];
  return [
    {
      type: 'function',
      name: SHELL_FUNCTION_NAME,
      description:
        'Run shell commands in the user\'s working directory. Each command runs in a fresh shell, in the sandbox; output is capped. When a command needs more (the network, files outside the workspace), set sandbox_permissions to "require_escalated" with a justification: the user is asked.',
      strict: true,
      parameters: {
        type: 'object',
        properties: {
          commands: { type: 'array', items: { type: 'string' }, description: 'Command lines to run in order.' },
          timeout_ms: { type: ['integer', 'null'], description: 'Timeout per command in milliseconds (default 120000).' },
          workdir: { type: ['string', 'null'], description: 'Directory to run in, relative to the working directory.' },
          ...NULLABLE_ESCALATION,
        },
        required: ['commands', 'timeout_ms', 'workdir', 'sandbox_permissions', 'justification', 'prefix_rule'],
        additionalProperties: false,
      },
    },
  ];
}

export function describeResult(r: CommandResultInfo): string {
  if (r.backgroundSession !== undefined) return `running as exec session ${r.backgroundSession}`;
  if (r.interrupted) return 'interrupted by the user';
  if (r.timedOut) return 'timed out';
  return `exit ${r.exitCode ?? 'signal'}`;
}

/**
 * What the commands of a call said (all, or until one was interrupted): per command for the
 * built-in tool's `shell_call_output`, and as one text for the function form (wire-output.ts
 * picks the one the call's form needs).
 */
export function shellReply(call: ShellCall, results: CommandResultInfo[]): ToolReply {
  const ok = results.every((r) => r.exitCode === 0);
  const commands = results.map(
    (r): ShellOutputChunk => ({
      stdout: r.stdout,
      stderr: r.interrupted ? `${r.stderr}${r.stderr && !r.stderr.endsWith('\n') ? '\n' : ''}[interrupted by the user]` : r.stderr,
      outcome: r.timedOut ? { type: 'timeout' } : { type: 'exit', exit_code: r.exitCode ?? (r.interrupted ? 130 : 1) },
    }),
  );
  const text = results
    .map((r) => {
      const lines = [`$ ${r.command}`, `[${describeResult(r)}, ${r.durationMs} ms]`];
      if (r.stdout) lines.push(r.stdout.replace(/\n$/, ''));
      if (r.stderr) lines.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
      return lines.join('\n');
    })
    .join('\n\n');
  return { ok, text, commands, ...(call.maxOutput !== undefined ? { maxOutputLength: call.maxOutput } : {}) };
}

/** Short lines for the local transcript (new-chain context). */
export function summarizeResults(results: CommandResultInfo[]): string[] {
  return results.map((r) => {
    const out = (r.stdout + (r.stderr ? `\n${r.stderr}` : '')).trim().slice(0, 400);
    return `$ ${r.command} → ${describeResult(r)}${out ? `\n${out}` : ''}`;
  });
}

/**
 * The sandbox refused a command: the same decision as an escalation request (the person may run
 * it once more outside the sandbox, or with the network); a refusal's reason goes to the model.
 */
async function afterRefusal(
  r: SandboxedRunResult,
  callId: string,
  command: string,
  ctx: ToolContext,
  runWith: (scope: RunScope) => Promise<SandboxedRunResult>,
): Promise<SandboxedRunResult> {
  if (r.sandboxDenial === undefined || ctx.authorize === undefined || ctx.signal.aborted) return r;
  const decided = await ctx.authorize({ commands: [command], fields: DEFAULT_FIELDS, sandboxRefusal: r.sandboxDenial });
  if ('run' in decided) return runWith(decided.run);
  const note = `[agentx] not run again outside the sandbox: ${decided.refused}`;
  ctx.progress({ type: 'command_output', callId, chunk: `${note}\n`, stream: 'stderr' });
  return { ...r, stderr: `${r.stderr}${r.stderr.endsWith('\n') || r.stderr === '' ? '' : '\n'}${note}\n` };
}

export function createShellTool(opts: ShellToolOptions): Tool<ShellCall> {
  async function run(call: ShellCall, ctx: ToolContext): Promise<ToolResult> {
    const results: CommandResultInfo[] = [];
    const cwd = call.workdir ? (isAbsolute(call.workdir) ? call.workdir : resolve(ctx.cwd, call.workdir)) : ctx.cwd;
    for (const command of call.commands) {
      ctx.progress({ type: 'command_start', callId: call.callId, command });
      const runWith = (scope: RunScope | undefined): Promise<SandboxedRunResult> =>
        opts.runCommand({
          command,
          cwd,
          signal: ctx.signal,
          ...(scope !== undefined ? { scope } : {}),
          timeoutMs: call.timeoutMs ?? opts.defaultTimeoutMs,
          maxOutputBytes: call.maxOutput ?? opts.defaultMaxOutputBytes,
          onOutput: (chunk, stream) => ctx.progress({ type: 'command_output', callId: call.callId, chunk, stream }),
        });
      const r = await afterRefusal(await runWith(ctx.scope), call.callId, command, ctx, runWith);
      const info: CommandResultInfo = {
        callId: call.callId,
        command,
        exitCode: r.exitCode,
        timedOut: r.timedOut,
        interrupted: r.interrupted,
        durationMs: r.durationMs,
        truncatedBytes: r.truncatedBytes,
        stdout: r.stdout,
        stderr: r.stderr,
      };
      ctx.progress({ type: 'command_done', ...info });
      results.push(info);
      if (r.interrupted) break;
    }
    return { reply: shellReply(call, results), summary: summarizeResults(results), interrupted: results.some((r) => r.interrupted) };
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
