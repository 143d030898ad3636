// AGENTS.md discovery: the person's standing instructions for the model, read once per session
// (from $HOME, then every directory from the filesystem root down to the working directory).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, parse, resolve } from 'node:path';
import type { InstructionFile } from '../model/request.ts';

const MAX_AGENTS_MD_BYTES = 32 * 1024;

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

export function readAgentsFiles(cwd: string, home: string): InstructionFile[] {
  const files: InstructionFile[] = [];
  for (const path of findAgentsFiles(cwd, home)) {
    try {
      files.push({ path, text: readFileSync(path, 'utf8').slice(0, MAX_AGENTS_MD_BYTES) });
    } catch {
      // An unreadable AGENTS.md is skipped rather than failing the session.
    }
  }
  return files;
}
