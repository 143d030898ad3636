// Fuzzy ranking of project paths for the `@` finder: the query's characters must appear in the
// path in order (case-insensitive). Paths whose file name holds the query, matches that start a
// word (after `/`, `.`, `-`, `_`) and runs of consecutive characters rank first; shorter paths
// break ties. One pass per path and a small top-k array: 100k paths rank in tens of ms.

const BOUNDARY = new Set(['/', '.', '-', '_', ' ']);

function lowerScore(p: string, q: string): number {
  if (q === '') return 0;
  const nameStart = p.lastIndexOf('/') + 1;
  // A substring of the file name beats anything scattered: it is what the person is typing.
  const inName = p.indexOf(q, nameStart);
  if (inName !== -1) {
    // `repl` finds repl.ts before repl.test.ts: the whole name up to its extension was typed.
    const end = nameStart + q.length;
    const whole = inName === nameStart && (end === p.length || end === p.lastIndexOf('.')) ? 500 : 0;
    return 10_000 + (inName === nameStart ? 1_000 : 0) + whole - p.length;
  }
  const inPath = p.indexOf(q);
  if (inPath !== -1) return 5_000 + (inPath === 0 || BOUNDARY.has(p[inPath - 1] ?? '') ? 500 : 0) - p.length;
  let score = 0;
  let at = 0;
  let previous = -2;
  for (const ch of q) {
    const found = p.indexOf(ch, at);
    if (found === -1) return -1;
    if (found === previous + 1) score += 15;
    if (found === 0 || BOUNDARY.has(p[found - 1] ?? '')) score += 10;
    if (found >= nameStart) score += 5;
    previous = found;
    at = found + 1;
  }
  return score * 10 - p.length;
}

/** Lower-cased once per file list, not once per typed character. */
const lowered = new WeakMap<readonly string[], string[]>();

/** The best `limit` paths for the query, best first (in list order for an empty query). */
export function rankPaths(paths: readonly string[], query: string, limit: number): string[] {
  if (limit <= 0) return [];
  if (query === '') return paths.slice(0, limit);
  let lower = lowered.get(paths);
  if (!lower) {
    lower = paths.map((p) => p.toLowerCase());
    lowered.set(paths, lower);
  }
  const q = query.toLowerCase();
  const top: { path: string; score: number }[] = [];
  for (const [n, path] of paths.entries()) {
    const score = lowerScore(lower[n] ?? '', q);
    if (score < 0) continue;
    if (top.length === limit && score <= (top[limit - 1]?.score ?? 0)) continue;
    let i = top.length;
    while (i > 0 && (top[i - 1]?.score ?? 0) < score) i--;
    top.splice(i, 0, { path, score });
    if (top.length > limit) top.pop();
  }
  return top.map((t) => t.path);
}
