// Two directives that let tests ask the emulated model what it still remembers:
//   `recall: KEY1 KEY2`  → "Recalled: KEY1=VALUE1, KEY2=?" (`?` = not visible any more);
//   `recall: *`          → every fact it can see;
//   "summarize the conversation …" → a structured summary that carries every visible fact as a
//   `remember KEY=VALUE` line, so a summary fed into a new chain keeps the facts readable.
import type { ContextView } from './memory.ts';

const RECALL = /\brecall:[ \t]*([^\n]*)/gi;
const SUMMARY_REQUEST = /\bsummari[sz]e (?:the|this|our) conversation\b/i;
const SUMMARY_MESSAGES = 6;
const SUMMARY_MESSAGE_CHARS = 400;

/** The answer to the last `recall:` directive of the text, or null when there is none. */
export function recallAnswer(text: string, view: ContextView): string | null {
  const matches = [...text.matchAll(RECALL)];
  const last = matches.at(-1);
  if (!last) return null;
  const keys = (last[1] ?? '').split(/[\s,]+/).filter((k) => k.length > 0);
  if (keys.length === 0 || keys.includes('*')) {
    const all = [...view.facts].map(([k, v]) => `${k}=${v}`);
    return `Recalled: ${all.length > 0 ? all.join(', ') : '(nothing)'}`;
  }
  return `Recalled: ${keys.map((k) => `${k}=${view.facts.get(k) ?? '?'}`).join(', ')}`;
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > SUMMARY_MESSAGE_CHARS ? `${oneLine.slice(0, SUMMARY_MESSAGE_CHARS)}…` : oneLine;
}

/** The structured summary an agent asks for before starting a new chain, or null for other texts. */
export function summaryAnswer(text: string, view: ContextView): string | null {
  if (!SUMMARY_REQUEST.test(text)) return null;
  // The summary request itself is the newest visible message: it is not part of the conversation.
  const messages = view.userMessages.slice(0, -1);
  const total = view.folded + messages.length;
  const lines = [`Summary of the conversation so far (${total} messages from the person).`];
  lines.push(`Goal: ${messages[0] ? clip(messages[0]) : '(not stated)'}`);
  lines.push('Facts the person gave:');
  for (const [key, value] of view.facts) lines.push(`- remember ${key}=${value}`);
  if (view.facts.size === 0) lines.push('- (none)');
  lines.push("The person's most recent messages, verbatim:");
  for (const m of messages.slice(-SUMMARY_MESSAGES)) lines.push(`> ${clip(m)}`);
  return lines.join('\n');
}
