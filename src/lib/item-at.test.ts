import { describe, expect, it } from 'vitest';
import { itemAt } from './item-at.ts';

describe('itemAt', () => {
  it('reads an element in range, null and falsy values included', () => {
    expect(itemAt(['a', 'b'], 1)).toBe('b');
    expect(itemAt([0, ''], 0)).toBe(0);
    expect(itemAt([null], 0)).toBeNull();
  });

  it('throws a RangeError naming the index and length when out of range', () => {
    expect(() => itemAt(['a'], 1)).toThrow(new RangeError('index 1 is out of range (length 1)'));
    expect(() => itemAt(['a'], -1)).toThrow(RangeError);
    expect(() => itemAt([], 0)).toThrow(RangeError);
  });
});
