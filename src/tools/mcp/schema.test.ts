// Input schemas adapted for the Responses API: what is repaired, and when strict mode is used.
import { describe, expect, it } from 'vitest';
import { adaptInputSchema, isStrictCompatible, trimDescription } from './schema.ts';

const closed = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

describe('adaptInputSchema', () => {
  it('keeps a strict-ready schema as it is and offers it strict (dropping only $schema)', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      ...closed({ text: { type: 'string', description: 'what' }, n: { type: ['integer', 'null'], minimum: 0 } }),
    };
    const { $schema: _drop, ...rest } = schema;
    expect(adaptInputSchema(schema)).toEqual({ parameters: rest, strict: true });
  });

  it('strict with nested closed objects, arrays with items, enums, anyOf and local $refs', () => {
    const schema = closed({
      mode: { type: 'string', enum: ['a', 'b'] },
      list: { type: 'array', items: closed({ id: { type: 'string', format: 'uuid' } }), maxItems: 5 },
      either: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/thing' }] },
    });
    expect(adaptInputSchema({ ...schema, $defs: { thing: closed({ x: { type: 'number' } }) } }).strict).toBe(true);
  });

  it('is not strict when a property is optional, objects are open, or keywords are unsupported', () => {
    const notStrict = [
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      closed({ a: { type: 'string', default: 'x' } }),
      closed({ a: { type: 'string', minLength: 1 } }),
      closed({ a: { oneOf: [{ type: 'string' }, { type: 'number' }] } }),
      closed({ a: { type: 'string', format: 'uri' } }),
      closed({ a: {} }),
      closed({ a: { $ref: 'http://elsewhere/schema.json' } }),
      closed({ a: { type: 'object' } }),
    ];
    for (const schema of notStrict) expect(adaptInputSchema(schema).strict, JSON.stringify(schema)).toBe(false);
  });

  it('is not strict beyond 10 levels of objects', () => {
    let schema: Record<string, unknown> = closed({ leaf: { type: 'string' } });
    for (let i = 0; i < 10; i++) schema = closed({ next: schema });
    expect(isStrictCompatible(schema)).toBe(false);
  });

  it('adds items to every array that lacks them, wherever it is', () => {
    const { parameters } = adaptInputSchema({
      type: 'object',
      properties: {
        tags: { type: 'array' },
        maybe: { type: ['array', 'null'] },
        nested: { type: 'object', properties: { deep: { anyOf: [{ type: 'array' }, { type: 'string' }] } } },
        tuple: { type: 'array', prefixItems: [{ type: 'string' }] },
      },
    });
    expect(parameters.properties).toEqual({
      tags: { type: 'array', items: {} },
      maybe: { type: ['array', 'null'], items: {} },
      nested: { type: 'object', properties: { deep: { anyOf: [{ type: 'array', items: {} }, { type: 'string' }] } } },
      tuple: { type: 'array', prefixItems: [{ type: 'string' }] },
    });
  });

  it('turns boolean schemas into object schemas, keeping additionalProperties flags', () => {
    const { parameters } = adaptInputSchema({
      type: 'object',
      properties: { any: true, none: false, map: { type: 'object', additionalProperties: true } },
      additionalProperties: false,
    });
    expect(parameters).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { any: {}, none: { not: {} }, map: { type: 'object', additionalProperties: true } },
    });
  });

  it('makes the root an object: missing type or properties, no schema at all, a non-object root', () => {
    expect(adaptInputSchema({}).parameters).toEqual({ type: 'object', properties: {} });
    expect(adaptInputSchema(undefined).parameters).toEqual({ type: 'object', properties: {} });
    expect(adaptInputSchema({ type: 'string', enum: ['x'] }).parameters).toEqual({ type: 'object', properties: {} });
    expect(adaptInputSchema({}).strict).toBe(false);
  });

  it('merges object branches of top-level combinators into the root properties', () => {
    const { parameters, strict } = adaptInputSchema({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      oneOf: [{ properties: { byName: { type: 'string' } }, required: ['byName'] }, { properties: { byId: { type: 'number' } } }],
      allOf: [{ properties: { common: { type: 'boolean' } }, required: ['common'] }],
    });
    expect(parameters).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, byName: { type: 'string' }, byId: { type: 'number' }, common: { type: 'boolean' } },
      required: ['id', 'common'],
    });
    expect(strict).toBe(false);
  });

  it('survives absurd nesting without recursing forever', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i++) schema = { type: 'object', properties: { x: schema } };
    expect(() => adaptInputSchema(schema)).not.toThrow();
    expect(adaptInputSchema(schema).strict).toBe(false);
  });
});

describe('trimDescription', () => {
  it('trims whitespace and cuts long descriptions with an ellipsis, by characters', () => {
    expect(trimDescription('  hi \n')).toBe('hi');
    expect(trimDescription(undefined)).toBe('');
    const cut = trimDescription('é'.repeat(2000));
    expect(Array.from(cut)).toHaveLength(1024);
    expect(cut.endsWith('…')).toBe(true);
    expect(trimDescription('abcdef', 4)).toBe('abc…');
  });
});
