import { describe, expect, it } from 'vitest';
import { buildRequest, supportsReasoning } from './request.ts';

describe('request building', () => {
  const shape = {
    model: 'gpt-5',
    instructions: 'sys',
    tools: [{ type: 'shell' as const, environment: { type: 'local' as const } }],
    reasoningEffort: undefined,
  };

  it('always stores and streams, and chains only when there is a previous response', () => {
    const first = buildRequest(shape, [], null);
    expect(first).toMatchObject({ store: true, stream: true, model: 'gpt-5', instructions: 'sys' });
    expect('previous_response_id' in first).toBe(false);
    expect(buildRequest(shape, [], 'resp_1').previous_response_id).toBe('resp_1');
  });

  it('asks for reasoning summaries only from models that reason', () => {
    expect(buildRequest(shape, [], null).reasoning).toEqual({ summary: 'auto' });
    expect(buildRequest({ ...shape, reasoningEffort: 'high' }, [], null).reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(buildRequest({ ...shape, model: 'gpt-4.1' }, [], null).reasoning).toBeUndefined();
    expect(supportsReasoning('o4-mini')).toBe(true);
    expect(supportsReasoning('llama3.1:8b')).toBe(false);
  });

  it('asks for encrypted reasoning exactly when nothing is stored and the model reasons (a stateless server must get it back to replay it)', () => {
    const keyed = { store: false, promptCacheKey: 'agentx-0123456789abcdef' };
    const stateless = buildRequest(shape, [], null, keyed);
    expect(stateless).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], prompt_cache_key: 'agentx-0123456789abcdef' });
    expect('include' in buildRequest(shape, [], null, { store: true, promptCacheKey: 'k' })).toBe(false);
    expect('include' in buildRequest(shape, [], 'resp_1')).toBe(false);
    // A model that does not reason has no reasoning to carry, stored or not.
    expect('include' in buildRequest({ ...shape, model: 'gpt-4.1' }, [], null, keyed)).toBe(false);
    expect('include' in buildRequest({ ...shape, model: 'llama3.1:8b' }, [], null, { store: false })).toBe(false);
  });
});
