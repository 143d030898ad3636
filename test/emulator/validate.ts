// Request-body validation against the published CreateResponse schema (JSON Schema 2020-12),
// plus the two top-level checks the schema cannot express: `model` is required and unknown
// top-level parameters are rejected.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import schema from './create-response.schema.json' with { type: 'json' };
import { invalidRequest, isRecord } from './wire.ts';
import { explain, requiredByType } from './explain.ts';
import type { RequiredByType } from './explain.ts';
import type { ApiError } from './wire.ts';

let compiled: { check: ValidateFunction; topLevel: Set<string>; requiredByType: RequiredByType } | undefined;

/**
 * The service accepts replayed assistant messages whose `output_text` parts have no
 * id/status/annotations/logprobs (see SCHEMA-SOURCE); the published schema does not, so relax it.
 * Likewise a replayed reasoning item with `content: null`: Codex CLI serializes its reasoning
 * items that way on every store:false follow-up request, and the service takes them. And an
 * mcp_approval_response without the phantom `request_id` the schema requires.
 */
function tolerantSchema(): Record<string, unknown> {
  const copy: unknown = structuredClone(schema);
  if (!isRecord(copy) || !isRecord(copy.$defs)) throw new Error('create-response schema has no $defs');
  const defs = copy.$defs;
  const outputMessage = defs.OutputMessage;
  if (isRecord(outputMessage)) outputMessage.required = ['type', 'role', 'content'];
  const outputText = defs.OutputTextContent;
  if (isRecord(outputText)) outputText.required = ['type', 'text'];
  const reasoning = defs.ReasoningItem;
  if (isRecord(reasoning) && isRecord(reasoning.properties) && isRecord(reasoning.properties.content)) {
    reasoning.properties.content = { anyOf: [reasoning.properties.content, { type: 'null' }] };
  }
  // MCPApprovalResponse lists `request_id` as required but defines no such property (the SDK,
  // the API reference and every client send approval_request_id only): a schema error.
  const approval = defs.MCPApprovalResponse;
  if (isRecord(approval) && Array.isArray(approval.required)) approval.required = approval.required.filter((k) => k !== 'request_id');
  return copy;
}

/**
 * Top-level parameters the service accepts although the published schema omits them:
 * `client_metadata` (string map) is sent by Codex CLI on every HTTP request (its turn metadata,
 * openai/codex PRs #21570 and #27122) and the service takes it, so the emulator must too.
 */
const UNDOCUMENTED_TOP_LEVEL = ['client_metadata'];

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
  for (const name of UNDOCUMENTED_TOP_LEVEL) names.add(name);
  return names;
}

/**
 * Compiles the schema once per process; later calls are free. Without inlined refs and code
 * optimisation the compile takes ~0.4 s instead of 1.5-2.5 s, and validating a body stays < 1 ms.
 */
export function prepareValidator(): void {
  if (compiled) return;
  const tolerant = tolerantSchema();
  const ajv = new Ajv2020({
    strict: false,
    validateFormats: false,
    logger: false,
    allErrors: false,
    inlineRefs: false,
    code: { optimize: false },
  });
  compiled = { check: ajv.compile(tolerant), topLevel: topLevelProperties(tolerant), requiredByType: requiredByType(tolerant) };
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
  return explain(compiled.check.errors ?? [], body, compiled.requiredByType);
}
