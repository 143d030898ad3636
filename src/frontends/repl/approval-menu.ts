// The REPL's answer to the engine's questions (engine/questions.ts): the exact command (every
// control shown, never obeyed), the model's justification, why it is asked, and one key:
// y once · w once with the network only · p always this prefix (the rule shown as it will be
// saved; then r remembered in the rules file, Enter, or s this session only) · n no · t no and tell the model (then a line of text). Enter is n, and the question says so.
import type { Decided, PersonQuestion } from '../../engine/questions.ts';
import { commandRows } from '../../ui/command-view.ts';
import { showControls } from '../../ui/sanitize.ts';
import type { Theme } from '../../ui/theme.ts';
import { readLine } from './line-input.ts';
import type { TerminalInput } from './terminal.ts';

const KEY_OF = { once: 'y', 'once-network': 'w', prefix: 'p', no: 'n', tell: 't' } as const;
const LABEL_OF = {
  once: (q: PersonQuestion): string => (q.escalated || q.kind === 'sandbox_refusal' ? 'yes, once outside the sandbox' : 'yes, once'),
  'once-network': (): string => 'once with the network only',
  prefix: (q: PersonQuestion): string => `always allow ${showControls(q.offerPrefix?.prefix.join(' ') ?? '')}`,
  no: (): string => 'no (Enter)',
  tell: (): string => 'no, and tell the model what to do instead',
};

/** The question's text, ending without a newline (the key is echoed after it). */
export function approvalPrompt(q: PersonQuestion, theme: Theme): string {
  const head =
    q.kind === 'sandbox_refusal'
      ? `the sandbox refused this command (${showControls(q.refusal?.kind ?? 'refused')}):`
      : q.escalated
        ? 'the model asks to run this outside the sandbox:'
        : `run ${q.commands.length === 1 ? 'this command' : `these ${q.commands.length} commands`}:`;
  const lines = [`${theme.yellow('?')} ${head}`];
  for (const command of q.commands) {
    commandRows(command, theme).forEach((row, i) => lines.push(`  ${theme.cyan(i === 0 ? `$ ${row}` : `│ ${row}`)}`));
  }
  if (q.refusal !== undefined) lines.push(`  ${theme.dim('its output said:')} ${showControls(q.refusal.evidence.slice(0, 200), (e) => theme.inverse(e))}`);
  if (q.justification !== undefined) lines.push(`  ${theme.dim('the model says:')} ${showControls(q.justification, (e) => theme.inverse(e))}`);
  for (const reason of q.reasons.filter((r) => !r.startsWith('the sandbox refused'))) lines.push(`  ${theme.dim(showControls(reason))}`);
  if (q.offerPrefix !== undefined && q.choices.includes('prefix')) {
    lines.push(`  ${theme.dim(`p saves to ${showControls(q.offerPrefix.file)}:`)} ${showControls(q.offerPrefix.savedAs)}`);
  }
  const choices = q.choices.map((c) => `${theme.bold(`[${KEY_OF[c]}]`)} ${LABEL_OF[c](q)}`);
  lines.push(`  ${choices.join(' · ')}: `);
  return lines.join('\n');
}

export interface MenuIo {
  term: TerminalInput;
  out: NodeJS.WriteStream;
  theme: Theme;
  write(text: string): void;
}

/** Asks the person; Ctrl-C answers no (the caller stops the turn). */
export async function askApproval(q: PersonQuestion, io: MenuIo): Promise<Decided & { cancelled: boolean }> {
  io.write(approvalPrompt(q, io.theme));
  const keys = q.choices.map((c) => KEY_OF[c]);
  const key = await io.term.askKey(keys, 'n');
  io.write(`${key === 'cancel' ? 'no (cancelled)' : key}\n`);
  if (key === 'cancel') return { answer: { kind: 'no' }, decidedBy: 'person', cancelled: true };
  if (key === 't') {
    const line = await readLine(io.term, io.out, { prompt: 'tell the model: ', history: [], pastes: new Map(), theme: io.theme });
    const text = line.kind === 'line' ? line.text.trim() : '';
    return { answer: text === '' ? { kind: 'no' } : { kind: 'tell', text }, decidedBy: 'person', cancelled: line.kind === 'interrupt' };
  }
  const kind = (Object.keys(KEY_OF) as (keyof typeof KEY_OF)[]).find((k) => KEY_OF[k] === key) ?? 'no';
  if (kind === 'prefix') {
    // Where the rule lives: the person's rules file (it holds across restarts) or this session only.
    const file = showControls(q.offerPrefix?.file ?? 'the rules file');
    io.write(`  ${io.theme.bold('[r]')} remember it in ${file} (Enter) · ${io.theme.bold('[s]')} this session only: `);
    const where = await io.term.askKey(['r', 's'], 'r');
    io.write(`${where === 'cancel' ? 'no (cancelled)' : where}\n`);
    if (where === 'cancel') return { answer: { kind: 'no' }, decidedBy: 'person', cancelled: true };
    return { answer: { kind: 'prefix', remember: where === 's' ? 'session' : 'saved' }, decidedBy: 'person', cancelled: false };
  }
  if (kind === 'tell') return { answer: { kind: 'no' }, decidedBy: 'person', cancelled: false };
  return { answer: { kind }, decidedBy: 'person', cancelled: false };
}
