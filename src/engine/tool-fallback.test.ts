import { describe, expect, it } from 'vitest';
import { ModelError } from '../model/errors.ts';
import type { ModelRequest } from '../model/types.ts';
import { builtinToolTypes, refusedToolTypes, withFallbackTools } from './tool-fallback.ts';

const fatal = (message: string, status = 400, param?: string): ModelError =>
  new ModelError(message, 'fatal', { status, ...(param === undefined ? {} : { param }) });
const OFFERED = ['shell', 'apply_patch'];

describe('refusedToolTypes', () => {
  it('reads the refusal of a built-in type in the shapes servers use', () => {
    expect(refusedToolTypes(fatal('400 unsupported tool type: shell'), OFFERED)).toEqual(['shell']);
    expect(
      refusedToolTypes(
        fatal(
          "400 1 validation error for ResponsesRequest tools.1 Input tag 'apply_patch' found using 'type' does not match any of the expected tags: 'function', 'mcp'",
        ),
        OFFERED,
      ),
    ).toEqual(['apply_patch']);
    expect(refusedToolTypes(fatal('Unprocessable: unknown tool "shell"', 422), OFFERED)).toEqual(['shell']);
  });

  it('is empty for every other failure, so nothing else ever changes the tools', () => {
    expect(refusedToolTypes(fatal('400 Previous response not found'), OFFERED)).toEqual([]);
    expect(refusedToolTypes(fatal('unsupported parameter: reasoning'), OFFERED)).toEqual([]);
    // Named only inside another word, or by a server error, or when retrying would help.
    expect(refusedToolTypes(fatal('invalid value for shell_environment'), OFFERED)).toEqual([]);
    expect(refusedToolTypes(fatal('unsupported tool type: shell', 500), OFFERED)).toEqual([]);
    expect(refusedToolTypes(new ModelError('unsupported tool type: shell', 'retryable', { status: 400 }), OFFERED)).toEqual([]);
    expect(refusedToolTypes(fatal('unsupported tool type: shell'), ['apply_patch'])).toEqual([]);
  });
});

describe('withFallbackTools', () => {
  const req = {
    model: 'm',
    input: [],
    tools: [{ type: 'shell', environment: { type: 'local' } }, { type: 'apply_patch' }, { type: 'web_search' }],
  } as unknown as ModelRequest;

  it('offers each refused built-in type as its function form, in place, and leaves the rest', () => {
    expect(withFallbackTools(req, undefined)).toBe(req);
    const moved = withFallbackTools(req, ['shell', 'apply_patch']);
    expect(moved.tools.map((t) => (t.type === 'function' ? `function:${t.name}` : t.type))).toEqual(['function:shell', 'function:apply_patch', 'web_search']);
    expect(builtinToolTypes(req.tools)).toEqual(['shell', 'apply_patch']);
    expect(builtinToolTypes(moved.tools)).toEqual([]);
  });
});
