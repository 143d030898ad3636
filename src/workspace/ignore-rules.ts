// What a snapshot leaves out, written as the store's info/exclude (git reads it together with
// every .gitignore inside the workspace):
//  - agentx's own state files and directories that are regenerated, not written by hand
//    (dependencies, caches, build output);
//  - the store itself, if it lies inside the workspace (never ingest ourselves);
//  - when the workspace is inside a git repository, the rules git would apply there but that a
//    store rooted at the workspace cannot see: the repository's .git/info/exclude and the
//    .gitignore files of the directories between the repository root and the workspace.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTextOrNull } from './fs-util.ts';

/** Directory names never snapshotted, at any depth (matched as directories only). */
export const DEFAULT_SKIP_DIRS: readonly string[] = [
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.tox',
  '.gradle',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
  '.cache',
  'dist',
  'build',
  'target',
  'coverage',
  '.terraform',
];

/** agentx's files beside the project (state, checkpoint, locks, journals, restore staging). */
const AGENTX_STATE_RULE = '.agentx_*';

export interface Repository {
  /** The directory holding `.git`. */
  root: string;
  /** The directory with info/exclude (the common dir of a linked worktree). */
  commonDir: string;
}

/** The git repository containing `dir`, found by looking for `.git` upwards; never runs git. */
export function findRepository(dir: string): Repository | null {
  for (let current = dir; ; current = path.dirname(current)) {
    const dotGit = path.join(current, '.git');
    const gitDir = resolveDotGit(dotGit);
    if (gitDir !== null) {
      const common = readTextOrNull(path.join(gitDir, 'commondir'))?.trim();
      return { root: current, commonDir: common ? path.resolve(gitDir, common) : gitDir };
    }
    if (path.dirname(current) === current) return null;
  }
}

function resolveDotGit(dotGit: string): string | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(dotGit);
  } catch {
    return null;
  }
  if (st.isDirectory()) return dotGit;
  const line = /^gitdir:\s*(.+?)\s*$/m.exec(readTextOrNull(dotGit) ?? '')?.[1];
  return line === undefined ? null : path.resolve(path.dirname(dotGit), line);
}

interface Rule {
  negated: boolean;
  dirOnly: boolean;
  body: string;
}

function parseRule(line: string): Rule | null {
  let text = line.replace(/(?<!\\)\s+$/, '');
  if (text === '' || text.startsWith('#')) return null;
  const negated = text.startsWith('!');
  if (negated) text = text.slice(1);
  const dirOnly = text.endsWith('/');
  if (dirOnly) text = text.replace(/\/+$/, '');
  return text === '' ? null : { negated, dirOnly, body: text };
}

function render(rule: Rule, body: string): string {
  return `${rule.negated ? '!' : ''}${body}${rule.dirOnly ? '/' : ''}`;
}

function globSegmentMatches(pattern: string, segment: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\' && i + 1 < pattern.length) re += escapeRegExp(pattern.charAt(++i));
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) re += '\\[';
      else {
        re += `[${pattern
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else re += escapeRegExp(c);
  }
  try {
    return new RegExp(`^${re}$`).test(segment);
  } catch {
    return false;
  }
}

function escapeRegExp(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/**
 * Rewrites ignore rules of a file whose patterns are relative to `baseRel` (a directory, relative
 * to the repository root, '' for the root) so they apply to a store rooted at `workspaceRel`
 * (inside baseRel). Unanchored rules apply at any depth and are kept; anchored ones are kept
 * with the part that leads down to the workspace removed, or dropped when they cannot match
 * inside it. A rule that matches the workspace itself or an ancestor of it is dropped: the
 * workspace is snapshotted even if the person's repository ignores it.
 */
export function translateIgnoreRules(text: string, baseRel: string, workspaceRel: string): string[] {
  const down = relativeSegments(baseRel, workspaceRel);
  if (down === null) return [];
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const rule = parseRule(line);
    if (rule === null) continue;
    const anchored = rule.body.includes('/');
    if (!anchored || rule.body.startsWith('**/')) {
      out.push(render(rule, rule.body));
      continue;
    }
    const rest = stripLeading(rule.body.replace(/^\//, '').split('/'), down);
    if (rest !== null) out.push(render(rule, rest));
  }
  return out;
}

function relativeSegments(baseRel: string, workspaceRel: string): string[] | null {
  const base = baseRel.split('/').filter(Boolean);
  const ws = workspaceRel.split('/').filter(Boolean);
  if (base.some((seg, i) => ws[i] !== seg)) return null;
  return ws.slice(base.length);
}

/** The pattern below `down` (the path from the rule's base to the workspace), anchored there. */
function stripLeading(segments: string[], down: string[]): string | null {
  let i = 0;
  for (const dirName of down) {
    const seg = segments[i];
    if (seg === undefined) return null;
    if (seg === '**') return `/**/${segments.slice(i + 1).join('/')}`.replace(/\/$/, '');
    if (!globSegmentMatches(seg, dirName)) return null;
    i++;
  }
  if (i >= segments.length) return null;
  return `/${segments.slice(i).join('/')}`;
}

export interface ExcludeInput {
  workspace: string;
  /** The store root (all projects), left out when it lies inside the workspace. */
  storeRoot: string;
  skipDirs: readonly string[];
}

function toPosix(rel: string): string {
  return rel.split(path.sep).join('/');
}

/** The text of the store's info/exclude for this workspace. */
export function buildExcludeText(input: ExcludeInput): string {
  const lines = ['# written by agentx: what workspace snapshots leave out', AGENTX_STATE_RULE];
  for (const name of input.skipDirs) lines.push(`${name}/`);
  const storeRel = path.relative(input.workspace, input.storeRoot);
  if (storeRel !== '' && !storeRel.startsWith('..') && !path.isAbsolute(storeRel)) lines.push(`/${toPosix(storeRel)}/`);
  const repo = findRepository(input.workspace);
  if (repo !== null) {
    const workspaceRel = toPosix(path.relative(repo.root, input.workspace));
    const exclude = readTextOrNull(path.join(repo.commonDir, 'info', 'exclude'));
    if (exclude !== null) lines.push(...translateIgnoreRules(exclude, '', workspaceRel));
    const parts = workspaceRel.split('/').filter(Boolean);
    for (let depth = 0; depth < parts.length; depth++) {
      const baseRel = parts.slice(0, depth).join('/');
      const gitignore = readTextOrNull(path.join(repo.root, ...parts.slice(0, depth), '.gitignore'));
      if (gitignore !== null) lines.push(...translateIgnoreRules(gitignore, baseRel, workspaceRel));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Whether `name` (a path git printed, maybe ending in '/') is one of the always-skipped directories. */
export function isSkipDir(entry: string, skipDirs: readonly string[]): boolean {
  if (!entry.endsWith('/')) return false;
  const name = entry.slice(0, -1).split('/').at(-1) ?? '';
  return skipDirs.includes(name);
}
