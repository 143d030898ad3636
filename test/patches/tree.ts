// Directory trees as comparable values for the patch corpus: every file's bytes and executable
// bit, every symbolic link's target, every directory (so stray temp files or dirs show up).
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

export type TreeEntry = { kind: 'dir' } | { kind: 'link'; target: string } | { kind: 'file'; bytes: Buffer; executable: boolean };

export function snapshotTree(root: string): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      const info = lstatSync(abs);
      if (info.isSymbolicLink()) out.set(rel, { kind: 'link', target: readlinkSync(abs) });
      else if (info.isDirectory()) {
        out.set(rel, { kind: 'dir' });
        walk(abs, rel);
      } else out.set(rel, { kind: 'file', bytes: readFileSync(abs), executable: (info.mode & 0o111) !== 0 });
    }
  };
  walk(root, '');
  return out;
}

function show(entry: TreeEntry | undefined): string {
  if (!entry) return 'absent';
  if (entry.kind === 'dir') return 'a directory';
  if (entry.kind === 'link') return `a link to ${entry.target}`;
  return `${entry.executable ? 'an executable' : 'a'} file ${JSON.stringify(entry.bytes.toString('utf8').slice(0, 400))}`;
}

/** Every difference between two trees, one line each (empty when they are identical). */
export function treeDifferences(actual: Map<string, TreeEntry>, expected: Map<string, TreeEntry>): string[] {
  const problems: string[] = [];
  for (const path of new Set([...actual.keys(), ...expected.keys()])) {
    const a = actual.get(path);
    const e = expected.get(path);
    const same =
      a?.kind === e?.kind &&
      (a?.kind !== 'link' || (e?.kind === 'link' && a.target === e.target)) &&
      (a?.kind !== 'file' || (e?.kind === 'file' && a.bytes.equals(e.bytes) && a.executable === e.executable));
    if (!same) problems.push(`${path}: expected ${show(e)}, got ${show(a)}`);
  }
  return problems.sort();
}
