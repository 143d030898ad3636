// Request-body validation against the published CreateResponse schema (JSON Schema 2020-12),
// plus the two top-level checks the schema cannot express: `model` is required and unknown
// top-level parameters are rejected.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import schema from './create-response.schema.json' with { type: 'json' };
import { invalidRequest, isRecord } from './wire.ts';
import type { ApiError } from './wire.ts';

let compiled: { check: ValidateFunction; topLevel: Set<string> } | undefined;

/**
 * The service accepts replayed assistant messages whose `output_text` parts have no
 * id/status/annotations/logprobs (see SCHEMA-SOURCE); the published schema does not, so relax it.
 */
function tolerantSchema(): Record<string, unknown> {
  const copy: unknown = structuredClone(schema);
  if (!isRecord(copy) || !isRecord(copy.$defs)) throw new Error('create-response schema has no $defs');
  const defs = copy.$defs;
  const outputMessage = defs.OutputMessage;
  if (isRecord(outputMessage)) outputMessage.required = ['type', 'role', 'content'];
  const outputText = defs.OutputTextContent;
  if (isRecord(outputText)) outputText.required = ['type', 'text'];
  return copy;
}

/** Every property name CreateResponse allows at the top level (walks its allOf/$ref tree). */
function topLevelProperties(root: Record<string, unknown>): Set<string> {
  const defs = isRecord(root.$defs) ? root.$defs : {};
  const names = new Set<string>();
  const visit = (node: unknown, depth: number): void => {
    if (!isRecord(node) || depth > 8) return;
    if (typeof node.$ref === 'string') visit(defs[node.$ref.replace('#/$defs/', '')], depth + 1);
    if (isRecord(node.properties)) for (const key of Object.keys(node.properties)) names.add(key);
    if (Array.isArray(node.allOf)) for (const part of node.allOf) visit(part, depth + 1);
  };
  visit(root, 0);
  return names;
}

/** Compiles the schema once per process (about half a second); later calls are free. */
export function prepareValidator(): void {
  if (compiled) return;
  const tolerant = tolerantSchema();
  const ajv = new Ajv2020({ strict: false, validateFormats: false, logger: false, allErrors: false });
  compiled = { check: ajv.compile(tolerant), topLevel: topLevelProperties(tolerant) };
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

const KEYWORD_RANK: Record<string, number> = { enum: 0, const: 0, required: 1, type: 2 };

/** Picks the error that best explains a failed anyOf maze: the deepest path, then enum/required/type. */
function explain(errors: ErrorObject[], body: unknown): ApiError {
  const concrete = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'allOf');
  const pool = concrete.length > 0 ? concrete : errors;
  const depth = (e: ErrorObject): number =>
    e.instancePath.split('/').length + (e.keyword === 'required' ? 1 : 0);
  const sorted = [...pool].sort(
    (a, b) => depth(b) - depth(a) || (KEYWORD_RANK[a.keyword] ?? 9) - (KEYWORD_RANK[b.keyword] ?? 9),
  );
  const best = sorted[0];
  if (!best) return invalidRequest('Invalid request body.');
  const path = best.instancePath;
  const param = paramName(path) || null;
  const value = valueAt(body, path);
  switch (best.keyword) {
    case 'required': {
      const missing = isRecord(best.params) ? String(best.params.missingProperty) : '?';
      const full = param ? `${param}.${missing}` : missing;
      return invalidRequest(`Missing required parameter: '${full}'.`, full, 'missing_required_parameter');
    }
    case 'enum':
    case 'const': {
      const allowed = new Set<string>();
      for (const e of pool) {
        if (e.instancePath !== path || !Array.isArray(e.params.allowedValues)) continue;
        for (const v of e.params.allowedValues) allowed.add(`'${String(v)}'`);
      }
      const list = allowed.size > 0 ? ` Supported values are: ${[...allowed].join(', ')}.` : '';
      return invalidRequest(`Invalid value: '${String(value)}' at '${param ?? 'body'}'.${list}`, param, 'invalid_value');
    }
    case 'type':
      return invalidRequest(
        `Invalid type for '${param ?? 'body'}': expected ${String(best.params.type)}, but got ${describe(value)} instead.`,
        param,
        'invalid_type',
      );
    default:
      return invalidRequest(`Invalid value for '${param ?? 'body'}': ${best.message ?? 'does not match the schema'}.`, param);
  }
}

/** Returns the service's 400 for a body that does not conform, or null when it does. */
export function validateRequestBody(body: unknown): ApiError | null {
  prepareValidator();
  if (!compiled) return null;
  if (!isRecord(body)) return invalidRequest('Invalid type for request body: expected an object.');
  for (const key of Object.keys(body)) {
    if (!compiled.topLevel.has(key)) return invalidRequest(`Unknown parameter: '${key}'.`, key, 'unknown_parameter');
  }
  if (body.model === undefined) {
    return invalidRequest("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  }
  if (compiled.check(body)) return null;
  return explain(compiled.check.errors ?? [], body);
}
