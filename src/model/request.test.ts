import { describe, expect, it } from 'vitest';
import { buildRequest, supportsReasoning } from './request.ts';

describe('request building', () => {
  const shape = { model: 'gpt-5', instructions: 'sys', tools: [{ type: 'shell' as const, environment: { type: 'local' as const } }], reasoningEffort: undefined };

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
});
