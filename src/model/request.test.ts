import { describe, expect, it } from 'vitest';
import { buildInstructions, buildRequest, supportsReasoning } from './request.ts';

describe('instructions', () => {
  it('puts the system prompt first, then each AGENTS.md in the order given, naming its file', () => {
    const text = buildInstructions('/w/p', '/bin/bash', [{ path: '/h/AGENTS.md', text: 'home rules' }, { path: '/w/p/AGENTS.md', text: 'project rules' }]);
    expect(text).toContain('/w/p');
    expect(text).toContain('/bin/bash');
    expect(text.indexOf('home rules')).toBeLessThan(text.indexOf('project rules'));
    expect(text).toContain('# Instructions from /w/p/AGENTS.md');
  });
});

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
