// /diff: what the session's tool calls changed — in the last turn, or since checkpoint N
// (`/diff N`) — as a per-file summary and a coloured unified diff. Everything the diff holds is
// file content, so it passes the terminal sanitiser before it is shown.
import type { Theme } from '../../ui/theme.ts';
import { sanitizeText } from '../../ui/sanitize.ts';
import { say, type ReplContext } from './context.ts';

/** Colours a plain unified diff: + green, - red, hunk headers cyan, file headers bold. */
export function colourDiff(text: string, t: Theme): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')) return t.bold(line);
      if (line.startsWith('+')) return t.green(line);
      if (line.startsWith('-')) return t.red(line);
      if (line.startsWith('@@')) return t.cyan(line);
      return line;
    })
    .join('\n');
}

export async function diffCommand(ctx: ReplContext, arg: string): Promise<void> {
  const t = ctx.theme;
  const history = ctx.session.state.history;
  let index: number | undefined;
  if (/^\d+$/.test(arg)) {
    index = Number(arg);
    if (index < 1 || index > history.length) {
      say(ctx, t.red(history.length === 0 ? 'No checkpoints yet.' : `No checkpoint ${arg}: choose 1-${history.length}.`));
      return;
    }
  } else if (arg !== '') {
    say(ctx, t.red('usage: /diff [N]'));
    return;
  }
  if (!ctx.snapshots) {
    say(ctx, 'File snapshots are off (AGENTX_SNAPSHOTS=off): there is nothing to diff.');
    return;
  }
  const diff = await ctx.engine.diffFiles(index);
  const since = index === undefined ? 'in the last turn' : `since checkpoint ${index}`;
  if (diff === null || diff.changes.length === 0) {
    say(ctx, `No files changed by tool calls ${since}.`);
    return;
  }
  say(ctx, t.bold(`Files changed by tool calls ${since}:`));
  for (const line of diff.summary) say(ctx, `  ${sanitizeText(line)}`);
  if (diff.text !== '') ctx.out.write(`${colourDiff(sanitizeText(diff.text), t)}${diff.text.endsWith('\n') ? '' : '\n'}`);
}
