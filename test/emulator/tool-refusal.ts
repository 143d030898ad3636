// Servers that know only function tools (issue 28 item 3): a request offering a built-in tool
// type they do not know (`shell`, `apply_patch`) is refused as a whole with a 400, in the shape
// the server family uses:
// - `openai`: OpenAI's envelope, `{"error": {"message": "unsupported tool type: shell", …}}`, as
//   Ollama's OpenAI-compatible endpoints and LiteLLM's proxy answer;
// - `vllm`: vLLM's own top-level body, `{"object": "error", "message": …, "type": "BadRequestError",
//   "code": 400}`, its message a pydantic validation error of the tools union.
import { ApiError, isRecord } from './wire.ts';

export interface ToolTypeRefusal {
  types: string[];
  style?: 'openai' | 'vllm';
}

/** The 400 for the first refused type `tools` offers; undefined when it offers none. */
export function refuseToolTypes(tools: unknown, refusal: ToolTypeRefusal | undefined): ApiError | undefined {
  if (!refusal || !Array.isArray(tools)) return undefined;
  const index = tools.findIndex((t) => isRecord(t) && typeof t.type === 'string' && refusal.types.includes(t.type));
  if (index < 0) return undefined;
  const type = String((tools[index] as { type: string }).type);
  if (refusal.style === 'vllm') {
    const message = `1 validation error for ResponsesRequest\ntools.${index}\n  Input tag '${type}' found using 'type' does not match any of the expected tags: 'function', 'file_search', 'web_search_preview', 'computer_use_preview', 'mcp', 'code_interpreter' [type=union_tag_invalid, input_value={'type': '${type}'}, input_type=dict]`;
    return new ApiError(
      400,
      { message, type: 'BadRequestError', param: null, code: null },
      {},
      { object: 'error', message, type: 'BadRequestError', param: null, code: 400 },
    );
  }
  return new ApiError(400, { message: `unsupported tool type: ${type}`, type: 'invalid_request_error', param: null, code: null });
}
