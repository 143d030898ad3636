// MCP input schemas adapted to what the Responses API accepts for a function tool. Servers write
// plain JSON Schema; the API rejects some of it outright (an array without `items`, a root that
// is not an object or has top-level combinators), and strict mode accepts only a subset. So:
// 1. normalise every schema into something the API takes in non-strict mode, changing as little
//    meaning as possible;
// 2. offer it with strict: true only if it already satisfies strict mode (every object closed
//    with all properties required, supported keywords only). Optional parameters are never
//    rewritten into required-nullable ones: a server may treat null differently from absent.
import { isRecord } from '../../lib/guards.ts';

export type JsonObject = Record<string, unknown>;

export interface AdaptedSchema {
  parameters: JsonObject;
  strict: boolean;
}

/** Deeper than this is treated as "anything": no real tool schema nests so far, a hostile one might. */
const MAX_DEPTH = 48;

function typesOf(schema: JsonObject): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [];
}

/** Keywords whose value is one subschema, a list of them, or a map of them. */
const SINGLE = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
];
const LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** A copy of `schema` with every nested schema made acceptable (see file comment). */
function normalize(schema: unknown, depth: number): JsonObject {
  if (schema === true || depth > MAX_DEPTH) return {};
  if (schema === false) return { not: {} };
  if (!isRecord(schema)) return {};
  const out: JsonObject = { ...schema };
  for (const key of SINGLE) {
    const v = out[key];
    // additionalProperties: false is a flag here, not the "nothing matches" schema.
    if (key === 'additionalProperties' && typeof v === 'boolean') continue;
    if (key === 'items' && Array.isArray(v)) out[key] = v.map((s) => normalize(s, depth + 1));
    else if (v !== undefined) out[key] = normalize(v, depth + 1);
  }
  for (const key of LISTS) {
    const v = out[key];
    if (Array.isArray(v)) out[key] = v.map((s) => normalize(s, depth + 1));
  }
  for (const key of MAPS) {
    const v = out[key];
    if (!isRecord(v)) continue;
    const map: JsonObject = {};
    for (const [name, sub] of Object.entries(v)) map[name] = normalize(sub, depth + 1);
    out[key] = map;
  }
  // The API refuses "array schema missing items"; an open item schema keeps the meaning.
  if (typesOf(out).includes('array') && out.items === undefined && out.prefixItems === undefined) out.items = {};
  return out;
}

const ROOT_COMBINATORS = ['anyOf', 'oneOf', 'allOf'];

/**
 * The root must be `type: "object"` without top-level combinators, enum or not. Object-shaped
 * branches of a top-level anyOf/oneOf/allOf are merged into the root's properties, so the model
 * still sees every parameter; `required` is kept only from allOf branches (they all apply).
 */
function normalizeRoot(input: JsonObject): JsonObject {
  const root: JsonObject = { ...input };
  delete root.$schema;
  const properties: JsonObject = isRecord(root.properties) ? { ...root.properties } : {};
  const required = new Set(Array.isArray(root.required) ? root.required.filter((r): r is string => typeof r === 'string') : []);
  for (const key of ROOT_COMBINATORS) {
    const branches = root[key];
    delete root[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isRecord(branch) || !isRecord(branch.properties)) continue;
      for (const [name, sub] of Object.entries(branch.properties)) if (!(name in properties)) properties[name] = sub;
      if (key === 'allOf' && Array.isArray(branch.required)) {
        for (const r of branch.required) if (typeof r === 'string') required.add(r);
      }
    }
  }
  delete root.enum;
  delete root.not;
  delete root.const;
  root.type = 'object';
  root.properties = properties;
  if (required.size > 0) root.required = [...required].filter((r) => r in properties);
  else delete root.required;
  return root;
}

// ---- strict-mode eligibility ------------------------------------------------------------

const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'maxItems',
]);
const STRICT_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const STRICT_MAX_OBJECT_DEPTH = 10;
const STRICT_MAX_PROPERTIES = 5000;
const STRICT_MAX_ENUM_VALUES = 1000;

interface StrictBudget {
  properties: number;
  enumValues: number;
}

function isClosedObject(schema: JsonObject): boolean {
  if (schema.additionalProperties !== false) return false;
  const props = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  return required.length === props.length && props.every((p) => required.includes(p));
}

function strictTypeOk(schema: JsonObject): boolean {
  const types = typesOf(schema);
  if (schema.type !== undefined && types.length === 0) return false;
  if (types.some((t) => !STRICT_TYPES.has(t))) return false;
  // Every schema must say what it is; an open `{}` cannot be strict.
  return types.length > 0 || schema.anyOf !== undefined || schema.$ref !== undefined || schema.enum !== undefined || schema.const !== undefined;
}

function strictNodeOk(schema: unknown, objectDepth: number, budget: StrictBudget): boolean {
  if (!isRecord(schema)) return false;
  if (Object.keys(schema).some((k) => !STRICT_KEYWORDS.has(k))) return false;
  if (!strictTypeOk(schema)) return false;
  if (typeof schema.format === 'string' && !STRICT_FORMATS.has(schema.format)) return false;
  if (typeof schema.$ref === 'string' && !schema.$ref.startsWith('#')) return false;
  if (Array.isArray(schema.enum)) {
    budget.enumValues += schema.enum.length;
    if (budget.enumValues > STRICT_MAX_ENUM_VALUES) return false;
  }
  const isObjectSchema = typesOf(schema).includes('object') || schema.properties !== undefined;
  let depth = objectDepth;
  if (isObjectSchema) {
    if (!isClosedObject(schema)) return false;
    depth++;
    if (depth > STRICT_MAX_OBJECT_DEPTH) return false;
    const props = isRecord(schema.properties) ? Object.values(schema.properties) : [];
    budget.properties += props.length;
    if (budget.properties > STRICT_MAX_PROPERTIES) return false;
    if (!props.every((p) => strictNodeOk(p, depth, budget))) return false;
  }
  if (schema.items !== undefined && !strictNodeOk(schema.items, depth, budget)) return false;
  if (schema.anyOf !== undefined && !(Array.isArray(schema.anyOf) && schema.anyOf.every((s) => strictNodeOk(s, depth, budget)))) return false;
  for (const key of ['$defs', 'definitions']) {
    const defs = schema[key];
    if (defs !== undefined && !(isRecord(defs) && Object.values(defs).every((s) => strictNodeOk(s, depth, budget)))) return false;
  }
  return true;
}

export function isStrictCompatible(parameters: JsonObject): boolean {
  if (parameters.type !== 'object' || parameters.anyOf !== undefined) return false;
  return strictNodeOk(parameters, 0, { properties: 0, enumValues: 0 });
}

export function adaptInputSchema(inputSchema: unknown): AdaptedSchema {
  const parameters = normalizeRoot(normalize(isRecord(inputSchema) ? inputSchema : {}, 0));
  return { parameters, strict: isStrictCompatible(parameters) };
}

export const DEFAULT_MAX_DESCRIPTION_CHARS = 1024;

/**
 * Tool descriptions are cut to 1024 characters by default: the limit the API enforced on
 * function descriptions for a long time and proxies in front of it still do — one overlong
 * description would fail every request of the session.
 */
export function trimDescription(text: string | undefined, maxChars: number = DEFAULT_MAX_DESCRIPTION_CHARS): string {
  const clean = (text ?? '').trim();
  const chars = Array.from(clean);
  if (chars.length <= maxChars) return clean;
  return `${chars
    .slice(0, Math.max(0, maxChars - 1))
    .join('')
    .trimEnd()}…`;
}
