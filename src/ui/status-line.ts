// The status line under the prompt: what the next message will run with. Each field is optional
// so that parts of agentx that come later (approval modes, background sessions) only fill theirs.
import type { Theme } from './theme.ts';
import { stringWidth } from './width.ts';
import { sanitizeLine } from './sanitize.ts';

export interface StatusFields {
  model: string;
  reasoningEffort?: string;
  /** 0…1 of the context window left, and whether the window size is a guess. */
  contextLeft?: { fraction: number; assumed: boolean };
  sandbox?: string;
  network?: 'on' | 'off';
  approval?: string;
  planMode?: boolean;
  backgroundSessions?: number;
}

export function formatStatusLine(f: StatusFields, columns: number, t: Theme): string {
  const parts: string[] = [];
  // Names come from configuration and the server's model list: shown, never obeyed.
  parts.push(sanitizeLine(f.reasoningEffort === undefined ? f.model : `${f.model} ${f.reasoningEffort}`));
  if (f.contextLeft) parts.push(`${Math.floor(f.contextLeft.fraction * 100)}% context left${f.contextLeft.assumed ? '?' : ''}`);
  if (f.sandbox !== undefined) parts.push(`sandbox ${sanitizeLine(f.sandbox)}${f.network === undefined ? '' : `, network ${f.network}`}`);
  if (f.approval !== undefined) parts.push(`approval ${sanitizeLine(f.approval)}`);
  if (f.planMode === true) parts.push('plan mode');
  if (f.backgroundSessions !== undefined && f.backgroundSessions > 0)
    parts.push(`${f.backgroundSessions} background session${f.backgroundSessions === 1 ? '' : 's'} (/ps)`);
  let line = parts.join(' · ');
  // Never wider than the screen: a wrapped status line would push the prompt up on every key.
  const max = Math.max(1, columns - 1);
  if (stringWidth(line) > max) line = `${[...line].slice(0, max - 1).join('')}…`;
  return t.dim(line);
}
