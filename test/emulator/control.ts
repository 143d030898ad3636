// Parsing of scripted steps sent to POST /__emulator/enqueue by other processes.
import { STEP_KINDS, isRecord } from './wire.ts';
import type { Step } from './wire.ts';

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const optional = (v: unknown, type: 'string' | 'number'): boolean => v === undefined || typeof v === type;

function isCall(v: unknown): boolean {
  if (!isRecord(v)) return false;
  if ('commands' in v) return isStringArray(v.commands);
  return typeof v.name === 'string' && typeof v.arguments === 'string';
}

function isHostedItem(v: unknown): boolean {
  if (!isRecord(v)) return false;
  const str = (k: string): boolean => typeof v[k] === 'string';
  switch (v.type) {
    case 'web_search':
      return str('query') && (v.sources === undefined || isStringArray(v.sources));
    case 'mcp_list_tools':
      return str('server') && isStringArray(v.tools) && optional(v.error, 'string');
    case 'mcp_call':
      return str('server') && str('name') && str('arguments') && optional(v.output, 'string') && optional(v.error, 'string');
    case 'mcp_approval_request':
      return str('server') && str('name') && str('arguments');
    case 'image_generation':
      return v.failed === undefined || typeof v.failed === 'boolean';
    default:
      return false;
  }
}

function isCitation(v: unknown): boolean {
  return isRecord(v) && typeof v.url === 'string' && typeof v.title === 'string';
}

/** A structural check of one step, so a typo in a benchmark script fails loudly at enqueue time. */
export function isStep(v: unknown): v is Step {
  if (!isRecord(v) || typeof v.kind !== 'string' || !STEP_KINDS.has(v.kind)) return false;
  switch (v.kind) {
    case 'text':
      return typeof v.text === 'string' && optional(v.chunks, 'number') && optional(v.delayMs, 'number') && optional(v.reasoning, 'string');
    case 'shell':
      return isStringArray(v.commands) && optional(v.timeoutMs, 'number') && optional(v.maxOutputLength, 'number') && optional(v.text, 'string');
    case 'function':
      return typeof v.name === 'string' && typeof v.arguments === 'string';
    case 'patch':
      return typeof v.patch === 'string' && optional(v.text, 'string');
    case 'calls':
      return Array.isArray(v.calls) && v.calls.every(isCall);
    case 'hosted':
      return (
        Array.isArray(v.items) &&
        v.items.every(isHostedItem) &&
        optional(v.text, 'string') &&
        (v.citations === undefined || (Array.isArray(v.citations) && v.citations.every(isCitation)))
      );
    case 'http_error':
      return (
        typeof v.status === 'number' &&
        optional(v.code, 'string') &&
        optional(v.message, 'string') &&
        optional(v.type, 'string') &&
        optional(v.retryAfter, 'number') &&
        optional(v.retryAfterMs, 'number') &&
        optional(v.times, 'number')
      );
    case 'cut':
      return optional(v.afterText, 'string');
    case 'failed':
      return typeof v.code === 'string' && typeof v.message === 'string';
    case 'raw':
      return (
        typeof v.body === 'string' && optional(v.status, 'number') && optional(v.contentType, 'string') && (v.cut === undefined || typeof v.cut === 'boolean')
      );
    default:
      return true;
  }
}

/** Accepts a JSON array of steps (or a single step); returns an error message when malformed. */
export function parseSteps(body: unknown): Step[] | string {
  const list = Array.isArray(body) ? body : [body];
  const steps: Step[] = [];
  for (const [index, item] of list.entries()) {
    if (!isStep(item)) return `Step ${index} is not a valid step: ${JSON.stringify(item)}`;
    steps.push(item);
  }
  return steps;
}
