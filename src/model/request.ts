// Builds request bodies: instructions (system prompt + AGENTS.md), tools, and input items.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, parse, resolve } from 'node:path';
import type { ShellToolKind } from '../cli/args.ts';
import type { ModelRequest } from './types.ts';

export const SHELL_FUNCTION_NAME = 'shell';
const MAX_AGENTS_MD_BYTES = 32 * 1024;

export function systemPrompt(cwd: string, shell: string): string {
  return [
    'You are agentx, a coding agent working in the user\'s terminal.',
    `You can run shell commands on the user's machine with the shell tool. The working directory is ${cwd}; the shell is ${shell}.`,
    'Prefer small, safe, inspectable steps. Never repeat a command that already ran unless the user asks.',
    'Answer concisely; use plain text suitable for a terminal.',
  ].join('\n');
}

/** AGENTS.md files from $HOME, then every directory from the filesystem root down to cwd. */
export function findAgentsFiles(cwd: string, home: string): string[] {
  const dirs: string[] = [];
  let dir = resolve(cwd);
  const root = parse(dir).root;
  for (;;) {
    dirs.unshift(dir);
    if (dir === root) break;
    dir = dirname(dir);
  }
  const homeDir = resolve(home);
  if (!dirs.includes(homeDir)) dirs.unshift(homeDir);
  return dirs.map((d) => join(d, 'AGENTS.md')).filter((f) => existsSync(f));
}

export function buildInstructions(cwd: string, home: string, shell: string): string {
  const parts = [systemPrompt(cwd, shell)];
  for (const file of findAgentsFiles(cwd, home)) {
    try {
      const text = readFileSync(file, 'utf8').slice(0, MAX_AGENTS_MD_BYTES);
      parts.push(`\n# Instructions from ${file}\n${text}`);
    } catch {
      // unreadable AGENTS.md: skip it rather than failing the request
    }
  }
  return parts.join('\n');
}

export function shellTools(kind: ShellToolKind): unknown[] {
  if (kind === 'builtin') return [{ type: 'shell', environment: { type: 'local' } }];
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

/** Models that accept `reasoning` (OpenAI reasoning families); others get no reasoning field. */
export function supportsReasoning(model: string): boolean {
  return /^(o\d|gpt-5|codex)/i.test(model);
}

/** A user message whose first parts carry context (shell transcript, notes) before the message itself. */
export function userMessageWithContext(context: string[], text: string): unknown {
  const parts = [...context, text].filter((p) => p.length > 0).map((p) => ({ type: 'input_text', text: p }));
  return { type: 'message', role: 'user', content: parts };
}

export interface RequestShape {
  model: string;
  instructions: string;
  tools: unknown[];
  reasoningEffort: string | undefined;
}

export function buildRequest(shape: RequestShape, input: unknown[], previousResponseId: string | null): ModelRequest {
  const req: ModelRequest = {
    model: shape.model,
    instructions: shape.instructions,
    input,
    store: true,
    stream: true,
    tools: shape.tools,
  };
  if (previousResponseId) req.previous_response_id = previousResponseId;
  if (supportsReasoning(shape.model)) {
    req.reasoning = shape.reasoningEffort ? { effort: shape.reasoningEffort, summary: 'auto' } : { summary: 'auto' };
  }
  return req;
}

/** The request with server-side compaction asked for at `compactThreshold` input tokens. */
export function withContextManagement(req: ModelRequest, compactThreshold: number): ModelRequest {
  return { ...req, context_management: [{ type: 'compaction', compact_threshold: compactThreshold }] };
}
