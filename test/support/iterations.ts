// How big a fault-style loop runs (N kill points, N rounds, N one-shots, N files): short in
// `npm test`, full size under `npm run fault` (FAULT_FULL=1), or one check at a time with
// FAULT_<NAME>=n. Shared by the fault suite (test/fault/lib/env.ts re-exports it) and the
// fault-style tests beside the code, so there is one knob for all of them.

/** `npm run fault` sets FAULT_FULL=1; `npm test` runs the short version. */
export const FULL = process.env.FAULT_FULL === '1';

/**
 * Iterations of one check: `FAULT_<NAME>` overrides (e.g. FAULT_RUNS=400 for the crash fuzz),
 * otherwise the full or the short count.
 */
export function iterations(name: string, short: number, full: number): number {
  const raw = process.env[`FAULT_${name}`];
  const n = raw === undefined ? NaN : Number(raw);
  if (Number.isInteger(n) && n >= 0) return n;
  return FULL ? full : short;
}
