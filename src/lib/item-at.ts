// Indexed reads the caller has already bounds-checked. noUncheckedIndexedAccess types `items[i]`
// as `T | undefined`; this gives `T` back without a cast, and an index out of range (a bug, never
// a normal path) fails loudly instead of passing `undefined` on. Small enough for V8 to inline
// into hot loops (the patch tool's diff and matching). Plain arrays only: a typed array here would
// make the one element load polymorphic for every caller (patch/diff.ts reads its Int32Array
// through a reader of its own).

/**
 * `items[index]`, which must exist. Element types exclude `undefined` (`T extends NonNullable<unknown> | null`),
 * so `undefined` can only mean "out of range". Throws RangeError when it is.
 */
export function itemAt<T extends NonNullable<unknown> | null>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new RangeError(`index ${index} is out of range (length ${items.length})`);
  return item;
}
