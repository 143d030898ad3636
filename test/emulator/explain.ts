// Turns ajv's errors for a failed anyOf maze into one service-style 400 that names the path.
// Unions in the schema are told apart by their `type` field, so errors from branches whose
// `type` does not match the value actually sent are noise and get dropped first.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { invalidRequest, isRecord } from './wire.ts';
import type { ApiError } from './wire.ts';

/** For each `type` discriminator value, the properties some schema with that type requires. */
export type RequiredByType = Map<string, Set<string>>;

function typeValues(typeSchema: unknown): string[] {
  if (!isRecord(typeSchema)) return [];
  if (typeof typeSchema.const === 'string') return [typeSchema.const];
  if (Array.isArray(typeSchema.enum)) return typeSchema.enum.filter((v): v is string => typeof v === 'string');
  if (Array.isArray(typeSchema.anyOf)) return typeSchema.anyOf.flatMap(typeValues);
  return [];
}

/** Walks the whole schema once, collecting `required` lists of every object schema with a typed `type`. */
export function requiredByType(root: unknown): RequiredByType {
  const map: RequiredByType = new Map();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!isRecord(node)) return;
    const props = node.properties;
    if (isRecord(props) && Array.isArray(node.required)) {
      for (const value of typeValues(props.type)) {
        const set = map.get(value) ?? new Set<string>();
        for (const name of node.required) if (typeof name === 'string') set.add(name);
        map.set(value, set);
      }
    }
    for (const child of Object.values(node)) visit(child);
  };
  visit(root);
  return map;
}

/** `/input/0/content/1/type` → `input[0].content[1].type`, the service's way of naming a param. */
export function paramName(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'number' && Number.isInteger(value) ? 'an integer' : `a ${typeof value}`;
}

function valueAt(body: unknown, pointer: string): unknown {
  let node = body;
  for (const raw of pointer.split('/').slice(1)) {
    if (Array.isArray(node)) node = node[Number(raw)];
    else if (isRecord(node)) node = node[raw];
    else return undefined;
  }
  return node;
}

/** The discriminator of the object at `pointer`: its `type`, or "message" for a bare role message. */
function discriminator(body: unknown, pointer: string): string | undefined {
  const node = valueAt(body, pointer);
  if (!isRecord(node)) return undefined;
  if (typeof node.type === 'string') return node.type;
  return typeof node.role === 'string' ? 'message' : undefined;
}

const parentOf = (pointer: string): string => pointer.slice(0, pointer.lastIndexOf('/'));
const isTypeMismatch = (e: ErrorObject): boolean => (e.keyword === 'enum' || e.keyword === 'const') && e.instancePath.endsWith('/type');

/** Drops errors of union branches that were never meant for the value sent. */
function relevant(errors: ErrorObject[], body: unknown, known: RequiredByType): ErrorObject[] {
  return errors.filter((e) => {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'allOf') return false;
    if (isTypeMismatch(e)) {
      const sent = discriminator(body, parentOf(e.instancePath));
      return sent === undefined || !known.has(sent);
    }
    if (e.keyword === 'required') {
      const sent = discriminator(body, e.instancePath);
      if (sent === undefined) return true;
      const missing = String((e.params as { missingProperty?: unknown }).missingProperty);
      return known.get(sent)?.has(missing) ?? false;
    }
    return true;
  });
}

const KEYWORD_RANK: Record<string, number> = { required: 0, enum: 1, const: 1, type: 2 };
const depth = (e: ErrorObject): number => e.instancePath.split('/').length + (e.keyword === 'required' ? 1 : 0);

/** Picks the error that best explains the failure (deepest relevant one) and words it like the service. */
export function explain(errors: ErrorObject[], body: unknown, known: RequiredByType): ApiError {
  const kept = relevant(errors, body, known);
  const pool = kept.length > 0 ? kept : errors.filter((e) => e.keyword !== 'anyOf');
  const best = [...pool].sort((a, b) => depth(b) - depth(a) || (KEYWORD_RANK[a.keyword] ?? 9) - (KEYWORD_RANK[b.keyword] ?? 9))[0];
  if (!best) return invalidRequest('Invalid request body.');
  const path = best.instancePath;
  const param = paramName(path) || null;
  const where = param ?? 'body';
  const value = valueAt(body, path);
  const params = best.params as Record<string, unknown>;
  switch (best.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const full = param ? `${param}.${missing}` : missing;
      return invalidRequest(`Missing required parameter: '${full}'.`, full, 'missing_required_parameter');
    }
    case 'enum':
    case 'const': {
      const allowed = new Set<string>();
      for (const e of pool) {
        if (e.instancePath !== path) continue;
        const p = e.params as Record<string, unknown>;
        const values = Array.isArray(p.allowedValues) ? (p.allowedValues as unknown[]) : 'allowedValue' in p ? [p.allowedValue] : [];
        for (const v of values) allowed.add(`'${String(v)}'`);
      }
      const list = allowed.size > 0 ? ` Supported values are: ${[...allowed].join(', ')}.` : '';
      return invalidRequest(`Invalid value: '${String(value)}' at '${where}'.${list}`, param, 'invalid_value');
    }
    case 'type':
      return invalidRequest(`Invalid type for '${where}': expected ${String(params.type)}, but got ${describe(value)} instead.`, param, 'invalid_type');
    default:
      return invalidRequest(`Invalid value for '${where}': ${best.message ?? 'does not match the schema'}.`, param);
  }
}
