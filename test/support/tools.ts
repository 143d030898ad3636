// Helpers for the tools tests: real processes are checked through the kernel, not mocked.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runShellCommand } from '../../src/tools/shell.ts';
import type { ShellRunOptions, ShellRunResult } from '../../src/tools/shell.ts';
import type { ApprovalDecision, ApprovalQuestion } from '../../src/tools/tool.ts';

/**
 * True while `pid` runs. Zombies count as gone: here PID 1 may reap orphans late or never,
 * and a zombie has finished all its work.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `check` until it holds; returns false on timeout so the assertion shows what failed. */
export async function waitFor(check: () => boolean, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Pids written one per line by a command; empty until the file has `count` complete lines. */
export function readPids(file: string, count: number): number[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const pids = text
    .split('\n')
    .filter((l) => /^\d+$/.test(l))
    .map(Number);
  return pids.length >= count && text.endsWith('\n') ? pids : [];
}

export async function waitForPids(file: string, count: number, timeoutMs = 5_000): Promise<number[]> {
  let pids: number[] = [];
  await waitFor(() => (pids = readPids(file, count)).length >= count, timeoutMs);
  if (pids.length < count) throw new Error(`no ${count} pids in ${file} after ${timeoutMs} ms`);
  return pids;
}

export interface TempDir {
  path: string;
  file(name: string): string;
  remove(): void;
}

export function makeTempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), 'agentx-shell-'));
  return { path, file: (name) => join(path, name), remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Runs under /bin/sh unless a test overrides SHELL, so results don't depend on the host's shell. */
export function run(dir: TempDir, command: string, extra: Partial<ShellRunOptions> = {}): Promise<ShellRunResult> {
  return runShellCommand({
    command,
    cwd: dir.path,
    timeoutMs: 10_000,
    maxOutputBytes: 64 * 1024,
    env: { ...process.env, SHELL: '/bin/sh' },
    killGraceMs: 500,
    ...extra,
  });
}

/** `ToolContext.approve` for a tool that never asks the person: a question fails the test. */
export function unexpectedApproval(question: ApprovalQuestion): Promise<ApprovalDecision> {
  return Promise.reject(new Error(`unexpected approval question: ${question.server}.${question.tool}`));
}
