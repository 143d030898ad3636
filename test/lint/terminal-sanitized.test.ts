// Every place that writes to the person's terminal (issue 23 §2): process.stdout/stderr.write,
// an `out.write` or `writer.write`, the renderer's `this.note`, or the REPL's say(). Text the model, a command, a server or a project file can
// influence must pass ui/sanitize.ts on its way there. This test finds every such call in src/ and
// requires that it either calls the sanitizer in its argument, writes only agentx's own literal
// text, or is listed below with the reason it is safe (reviewed: where the sanitizing happens, or
// why nothing untrusted reaches it). A new call site fails here until someone decides which it is.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');
const CALL = /(process\.(?:stdout|stderr)\.write|\b(?:ctx\.|opts\.|this\.)?(?:out|writer)\.write|\bthis\.note|\bsay)\(/g;
const SANITIZED = /\b(sanitizeLine|sanitizeLines|sanitizeText|showControls|jsonLine)\b/;

/** Reviewed call sites: `file: start of the argument` → why what it writes is safe. */
const REVIEWED: Record<string, string> = {
  'config/setup.ts: `agentx: saved configuration to ${path}\\n`': "the person's own config path",
  'config/setup.ts: `agentx: setup cancelled: ${err.message}\\n`': "errors of the setup dialogue on the person's terminal (input closed, file system)",
  'frontends/repl/commands.ts: ctx, ctx.theme.red(`cd: no such directory: ${arg}`)': 'what the person typed, shown back to them',
  'frontends/repl/commands.ts: ctx, tildePath(ctx.cwd, ctx.home)': "the directory the person cd'd to",
  'frontends/repl/commands.ts: s': "OutputView's writer: `!command` output, sanitized by OutputView (TerminalSanitizer)",
  "frontends/repl/commands.ts: ctx, t.red(`✗ exit ${r.exitCode ?? r.signal ?? '?'}`)": 'an exit code or signal name',
  'frontends/repl/commands.ts: usageReport(ctx.session.state, ctx.engine.shape.model, ctx.c': "token counts and prices; the model name is the person's setting",
  'frontends/repl/commands.ts: ctx, HELP': 'a constant',
  'frontends/repl/context.ts: `${line}\\n`': 'say() itself: every caller is checked here',
  "frontends/repl/diff-command.ts: ctx, t.red(history.length === 0 ? 'No checkpoints yet.' : `N": "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/diff-command.ts: ctx, `No files changed by tool calls ${since}.`': "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/diff-command.ts: ctx, t.bold(`Files changed by tool calls ${since}:`)': "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/extensions.ts: ctx, t.red(`/init needs the apply_patch tool (${ctx.planMode': "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/images.ts: ctx, ` 📎 ${tildePath(image.path, ctx.home)}`': 'a path the person gave /image',
  "frontends/repl/images.ts: ctx, t.green(`✓ ${n === 0 ? 'no image was attached' : `dropp": "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/images.ts: ctx, t.green(`📎 ${describeImage(image)} will be sent with y': 'kind, size and the path the person gave',
  'frontends/repl/model-command.ts: ctx, t.red(`usage: /model NAME [EFFORT]; efforts: ${EFFORTS.': "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/model-command.ts: ctx, `models the server offers (${list.ids.length}): ${shown': '`shown` is sanitizeLine(id) per name (model-command.ts)',
  'frontends/repl/model-command.ts: ctx, `Model families agentx knows the context window of: ${K': "agentx's own words with numbers, names or paths it chose",
  "frontends/repl/model-command.ts: ctx, `reasoning efforts: ${EFFORTS.join(', ')}`": "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/permissions-command.ts: ctx, `approval mode: ${t.bold(ctx.permissions.mode)} (${APPR':
    "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/permissions-command.ts: ctx, t.green(`✓ approval mode: ${arg}`)': 'checked against APPROVAL_MODES before',
  "frontends/repl/permissions-command.ts: ctx, lines.join('\\n')": "each rule and source line is sanitizeLine'd where built (permissions-command.ts)",
  'frontends/repl/plan-command.ts: ctx, line': "planLines (ui/plan-view.ts) sanitizes every string of the model's plan",
  "frontends/repl/plan-command.ts: `${t.yellow('?')} approve this plan and let the model carry ": "agentx's own words with numbers, names or paths it chose",
  "frontends/repl/plan-command.ts: `${answer === 'y' ? 'y' : 'n'}\\n`": "agentx's own words with numbers, names or paths it chose",
  "frontends/repl/ps-command.ts: ctx, formatSessions(manager.list(), Date.now()).join('\\n')":
    'formatSessions sanitizes each command and last line (ps-command.ts)',
  "frontends/repl/ps-command.ts: ctx, n === 0 ? 'No exec sessions are running.' : t.green(`✓ ": "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/ps-command.ts: ctx, stopped ? t.green(`✓ stopped exec session ${arg}`) : t.': 'arg matched /^\\d+$/ before',
  'frontends/repl/recovery.ts: ctx, ctx.theme.green(`✓ new session started${backup ? `; the': 'the backup file name agentx chose',
  "frontends/repl/recovery.ts: `${t.yellow('?')} Clear the conversation (${s.usage.turns} t": "agentx's own words with numbers, names or paths it chose",
  "frontends/repl/recovery.ts: `${answer === 'y' ? 'yes' : 'no'}\\n`": "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/recovery.ts: ctx, t.yellow(pendingHeaderText(state.last_user_message))': 'pendingHeaderText sanitizes (pinned by menu-lines.test.ts)',
  'frontends/repl/recovery.ts: ctx, ` ${t.cyan(pendingCallText(callTitle(ctx, c)))} ${statu': 'pendingCallText sanitizes (pinned by menu-lines.test.ts)',
  'frontends/repl/recovery.ts: ctx, t.yellow(` ${w}`)': "a tool's constant retry warning (MCP_RETRY_NOTICE, ...)",
  'frontends/repl/recovery.ts: ctx, t.yellow(`${what}${kept}`)': 'both parts are built with sanitizeLine just above',
  'frontends/repl/resume-command.ts: ctx, ctx.theme.red(`no earlier conversation ${arg}: there ${':
    'what the person typed after /resume, shown back to them, and a count',
  'frontends/repl/repl.ts: ctx, t.green(`Resuming session: ${s.usage.turns} turn${s.usa': 'a count and lastMessageLabel, which sanitizes (resume-command.ts)',
  'frontends/repl/resume-command.ts: ctx, ctx.theme.green( `✓ resumed the conversation of ${short': 'a date, a count and lastMessageLabel, which sanitizes',
  'frontends/repl/rollback.ts: ctx, ctx.theme.green( `✓ ${what}: ${s.usage.turns} turn${s.u':
    "agentx's own `what`, counts and lastMessageLabel, which sanitizes (resume-command.ts)",
  'frontends/repl/repl.ts: `agentx: cannot lock the session in ${dir}: ${lock.message}\\': "the person's directory and a file system error",
  'frontends/repl/repl.ts: `agentx: another agentx (pid ${lock.pid}) is already running': "a pid read from the sealed lock and the person's directory",
  'frontends/repl/repl.ts: { out }, theme.yellow(`⚠ ${unsavedBanner(dir, unsaved)}`)': "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/repl.ts: `agentx: ${config}\\n`': "a configuration error about the person's own settings",
  'frontends/repl/repl.ts: ctx, theme.green(`✓ using model ${ctx.config.model} at ${ctx': 'the settings the person just entered',
  "frontends/repl/repl.ts: `${t.yellow('?')} run them, now and whenever this file is un": "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/repl.ts: `${answer}\\n`': "a key from askKey's fixed list",
  'frontends/repl/repl.ts: ctx, t.yellow(`${pending.file} wants to start MCP servers (p': 'sanitized by mcp-session.ts (shownApproval)',
  'frontends/repl/repl.ts: ctx, ` ${t.cyan(s.name)} (${s.transport}): ${s.description}`': 'sanitized by mcp-session.ts (shownApproval)',
  'frontends/repl/repl.ts: ctx, ` ${line}`': 'sanitized by mcp-session.ts (shownApproval)',
  "frontends/repl/repl.ts: `${t.yellow('?')} start them, now and whenever this file is ": "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/repl.ts: ctx, t.dim(`agentx ${VERSION} · ${ctx.engine.shape.model} · ': "version, model setting, the person's directory",
  'frontends/repl/rollback.ts: ctx, ctx.theme.yellow(SIDE_EFFECTS)': 'a constant',
  "frontends/repl/rollback.ts: ctx, ctx.theme.green(`✓ files: ${head ?? ''}`)": "restoreSummary's first line: counts only (later lines are sanitizeLine'd)",
  'frontends/repl/rollback.ts: ctx, ctx.theme.green(`✓ ${what}`)': "agentx's own words with numbers, names or paths it chose",
  'frontends/repl/rollback.ts: ctx, t.red(`No checkpoint ${arg}: choose 1-${history.length}': 'arg matched /^\\d+$/ before',
  'frontends/repl/screen.ts: s': "the composer's screen writer: the person's own input",
  "frontends/repl/screen.ts: this.moveTo(0) + '\\r\\x1b[J' + text": "the composer's screen: the person's own input",
  "frontends/repl/screen.ts: this.moveTo(keep - 1) + '\\r' + right(stringCells(this.rows[k": "the composer's screen: the person's own input",
  'frontends/repl/spinner.ts: `\\r${this.theme.cyan(glyph)} ${this.theme.dim(`${this.shown}':
    "a constant label; the queued note is sanitizeLine'd (turns.ts queuedNote)",
  'frontends/repl/turns.ts: s': "the renderer's writer: ui/render.ts sanitizes what it writes",
  "frontends/repl/turns.ts: turnEndedSignal(this.ctx.env, Date.now() - started, 'agentx:": "a bell or OSC notification with agentx's own text",
  'frontends/repl/turns.ts: this.ctx, t.dim(formatContextLeft(contextLeft(outcome.tokens': 'numbers',
  'frontends/repl/wiring.ts: `\\nsetup cancelled: ${errorMessage(err)}\\n`': "errors of the setup dialogue on the person's terminal",
  'frontends/workspace-session.ts: line': 'opts.say: the REPL and one-shot sinks pass it through sanitizeLines',
  'frontends/workspace-session.ts: snapshotFailedNotice(err)': 'opts.say: the REPL and one-shot sinks pass it through sanitizeLines',
  'frontends/workspace-session.ts: ws.notice': 'opts.say: the REPL and one-shot sinks pass it through sanitizeLines',
  'frontends/workspace-session.ts: resumed': 'opts.say: the REPL and one-shot sinks pass it through sanitizeLines',
  'frontends/workspace-session.ts: `file rollback is unavailable: ${errorMessage(err)}`': 'opts.say: the REPL and one-shot sinks pass it through sanitizeLines',
  'frontends/workspace-session.ts: notice': 'opts.say: the REPL and one-shot sinks pass it through sanitizeLines',
  'frontends/workspace-session.ts: `snapshot store upkeep failed: ${errorMessage(err)}`': 'opts.say: the REPL and one-shot sinks pass it through sanitizeLines',
  'main.ts: bytes.subarray(offset)': 'help and version text (printFixed)',
  'main.ts: `${line}\\n`': 'describeClean: counts and file names agentx made',
  'main.ts: `agentx: ${message}${hint}\\n`':
    "every message is sanitizeLine'd before report(): an AgentxError's (it may quote a setting's value) and an unexpected error's",
  "main.ts: `${e?.stack ?? ''}\\n`": 'AGENTX_DEBUG_STACK only: a developer asked for the raw stack',
  "ui/menu.ts: back + lines.join('\\n')": 'menu items pass fit() → sanitizeLine (menu.ts)',
  'ui/menu.ts: index !== null ? `\\n${t.dim(`→ ${fit(chosen, width - 2)}`)}\\': 'fit() sanitizes',
  'frontends/repl/turns.ts: confirmPrompt(q.commands, t)': 'ui/command-view.ts: every command through showControls',
  "frontends/repl/turns.ts: `${answer === 'cancel' ? 'cancelled' : answer}\\n`": "an answer from askKey's fixed list",
  'frontends/repl/turns.ts: t': "askApproval's writer (repl/approval-menu.ts builds its lines with showControls/sanitizeLine)",
  'ui/render.ts: formatCommand(ev.command, t)': 'ui/command-view.ts: showControls on every row',
  'ui/render.ts: ` ${status}${this.opts.showTimers ? t.dim(` · ${formatDurati': 'exit status, duration, byte counts',
  "ui/render.ts: ` ${ok ? t.green('✓ ok') : t.red(`✗ ${ev.status.replace('_',": "a status from the tool's fixed set",
  'ui/render.ts: remoteMcpToolsLine(ev, t)': 'ui/hosted-view.ts: every server string through plainText (controls, bidi, zero-width)',
  'ui/render.ts: remoteMcpCallLine(ev, t)': 'ui/hosted-view.ts: every server string through plainText (controls, bidi, zero-width)',
  'ui/render.ts: imageGenerationLine(ev, t)': 'ui/hosted-view.ts: every server string through plainText (controls, bidi, zero-width)',
  'ui/render.ts: imageAttachedLine(ev, t)': 'ui/hosted-view.ts: the path through plainText',
  'ui/render.ts: t.dim(`✓ ${describeCompaction(ev)}`)': "the mechanism's fixed wording and token counts",
  "ui/render.ts: t.dim(parts.join(' · '))": 'token counts, context left, duration',
  'ui/render.ts: webSearchLine(ev, this.theme)': 'ui/hosted-view.ts: queries and URLs through plainText',
  'ui/render.ts: line': "planLines (ui/plan-view.ts) sanitizes every string of the model's plan",
  "ui/render.ts: `${t.cyan(`${c.operation === 'create' ? 'A' : c.operation ==": "a change letter and the path, sanitizeLine'd just above (name)",
  'ui/render.ts: s': "render.ts's own writer: callers sanitize (sanitizeText / TerminalSanitizer / sanitizeLine)",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/** The argument text of a call whose `(` ends at `start`: to the matching `)`, strings skipped. */
function argumentAt(src: string, start: number): string {
  const closers: string[] = [')'];
  let i = start;
  let quote: string | null = null;
  const templates: number[] = [];
  for (; i < src.length && closers.length > 0; i++) {
    const ch = src[i];
    if (quote !== null) {
      if (ch === '\\') i++;
      else if (quote === '`' && ch === '$' && src[i + 1] === '{') {
        closers.push('}');
        templates.push(closers.length);
        quote = null;
        i++;
      } else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(') closers.push(')');
    else if (ch === '{') closers.push('}');
    else if (ch === '[') closers.push(']');
    else if (ch === closers.at(-1)) {
      // The end of a `${…}` returns into its template literal.
      if (ch === '}' && templates.at(-1) === closers.length) {
        templates.pop();
        quote = '`';
      }
      closers.pop();
    }
  }
  return src.slice(start, i - 1);
}

/** Only literal text, colour helpers and the say() target: nothing that carries outside text. */
function literalOnly(arg: string): boolean {
  const rest = arg
    .replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`$\\]|\\.)*`/g, '')
    .replace(/\b(?:ctx|this\.ctx|\{ out \})\s*,/g, '')
    .replace(/\b(?:ctx\.theme|this\.theme|theme|t)\.(?:red|green|yellow|dim|bold|cyan)\(/g, '(');
  return !/[A-Za-z_$]/.test(rest);
}

function key(file: string, arg: string): string {
  return `${file}: ${arg.replace(/\s+/g, ' ').trim().slice(0, 60)}`;
}

interface Site {
  key: string;
  checked: boolean;
}

/** Every terminal write in one file; `checked`: it sanitizes or writes literal text only. */
function sitesIn(file: string, src: string): Site[] {
  const sites: Site[] = [];
  for (const m of src.matchAll(CALL)) {
    const lineStart = src.lastIndexOf('\n', m.index) + 1;
    // In a comment (a usage example), not a call.
    if (/^\s*(\/\/|\*)/.test(src.slice(lineStart, m.index))) continue;
    const arg = argumentAt(src, m.index + m[0].length);
    // say()'s own signature is not a write.
    if (/^\s*(ctx: |line: string)/.test(arg) || arg.trim() === '') continue;
    sites.push({ key: key(file, arg), checked: SANITIZED.test(arg) || literalOnly(arg) });
  }
  return sites;
}

it('tells a sanitized or literal write from one that carries outside text', () => {
  const src = [
    'say(ctx, t.yellow(`⚠ ${sanitizeLine(serverText)}`));',
    "say(ctx, t.dim('no plan yet'));",
    'process.stderr.write(`agentx: ${notice}\\n`);',
    'ctx.out.write(t.red(`✗ ${message}`));',
    '// say(await ws.resumeInterruptedRestore());',
  ].join('\n');
  expect(sitesIn('x.ts', src).map((s) => s.checked)).toEqual([true, true, false, false]);
});

it('every terminal write in src/ is sanitized, literal, or reviewed', () => {
  const unreviewed: string[] = [];
  const seen = new Set<string>();
  let sites = 0;
  for (const path of sources(SRC)) {
    const file = relative(SRC, path);
    for (const site of sitesIn(file, readFileSync(path, 'utf8'))) {
      sites++;
      if (site.checked) continue;
      seen.add(site.key);
      if (REVIEWED[site.key] === undefined) unreviewed.push(site.key);
    }
  }
  const stale = Object.keys(REVIEWED).filter((k) => !seen.has(k));
  process.stdout.write(`terminal writes: ${sites} call sites, ${seen.size} reviewed by hand\n`);
  if (process.env.SHOW_SITES) process.stdout.write(`${JSON.stringify(unreviewed, null, 1)}\n`);
  expect(unreviewed, 'terminal writes that neither sanitize nor are reviewed (pass outside text through ui/sanitize.ts)').toEqual([]);
  expect(stale, 'reviewed entries that match no call site any more').toEqual([]);
});
