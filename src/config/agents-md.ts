// AGENTS.md discovery: the person's standing instructions for the model, read once per session
// (from $HOME, then every directory from the filesystem root down to the working directory).
//
// A directory anyone can write to (o+w, or sticky like /tmp) or that belongs to another user is
// skipped: its AGENTS.md may have been put there by someone else, or by a sandboxed command
// (the temp dir is writable inside the sandbox), and would be injected into every project below
// it (issue 23 §6).
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, parse, resolve } from 'node:path';
import { currentUid } from '../lib/fsutil.ts';
import type { InstructionFile } from '../model/request.ts';

const MAX_AGENTS_MD_BYTES = 32 * 1024;
const WORLD_WRITABLE = 0o002;
const STICKY = 0o1000;

/** Whether instructions in `dir` can only come from the person (or root). */
function trustedDir(dir: string, uid: number | undefined): boolean {
  try {
    const st = statSync(dir);
    if ((st.mode & (WORLD_WRITABLE | STICKY)) !== 0) return false;
    return uid === undefined || st.uid === uid || st.uid === 0;
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

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
  const uid = currentUid();
  return dirs
    .filter((d) => trustedDir(d, uid))
    .map((d) => join(d, 'AGENTS.md'))
    .filter(isFile);
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
