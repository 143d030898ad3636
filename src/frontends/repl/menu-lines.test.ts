// Lines of the /rollback and pending-call menus that the model controls (its previews, its
// commands) reach the person only sanitized: a bidi override or a zero-width character shows as
// an escape instead of reordering or hiding text (issue 23).
import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../store/types.ts';
import { pendingCallText, pendingHeaderText } from './recovery.ts';
import { checkpointLabel } from './rollback.ts';

const TRICKS = 'rm -rf ~\u202e txt.exe\u200b ok\x1b[2J';

describe('model-controlled text in menus', () => {
  it('a /rollback checkpoint label shows bidi overrides, zero-width characters and escapes as text', () => {
    const h: HistoryEntry = {
      response_id: 'r1',
      timestamp: new Date().toISOString(),
      user_preview: TRICKS,
      assistant_preview: TRICKS,
      usage: { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0, turns: 1 },
    };
    const label = checkpointLabel(h, new Date());
    for (const raw of ['\u202e', '\u200b', '\x1b']) expect(label).not.toContain(raw);
    expect(label).toContain('\\u202e');
    expect(label).toContain('\\u200b');
  });

  it('the pending-call menu lines (the interrupted message and each call) do too', () => {
    for (const line of [pendingHeaderText(TRICKS), pendingCallText(TRICKS)]) {
      for (const raw of ['\u202e', '\u200b', '\x1b']) expect(line).not.toContain(raw);
      expect(line).toContain('\\u202e');
      expect(line).toContain('\\u200b');
    }
  });
});
