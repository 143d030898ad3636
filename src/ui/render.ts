// Human renderer: agent events → terminal. The answer goes to `out` (stdout in a one-shot),
// everything else (tool display, reasoning, usage, notices) to `err` (stderr).
// Every piece of text from the model, a command or the server passes the sanitiser first
// (sanitize.ts); the answer only when `out` is a terminal (a pipe gets the model's exact text).
import { formatContextLeft } from '../engine/context.ts';
import type { AgentEvent } from '../engine/events.ts';
import { describeResult } from '../tools/shell-tool.ts';
import type { TurnUsage } from '../usage/tokens.ts';
import { formatCommand } from './command-view.ts';
import { OutputView } from './output-view.ts';
import { sanitizeLine, sanitizeText, TerminalSanitizer } from './sanitize.ts';
import type { MarkdownFactory, MarkdownStream } from './terminal-output.ts';
import { formatDuration, isColorTheme, PLAIN_THEME, type Theme } from './theme.ts';
import { planLines } from './plan-view.ts';
import { stringWidth } from './width.ts';
import { imageAttachedLine, imageGenerationLine, remoteMcpCallLine, remoteMcpToolsLine, sourceLines, webSearchLine } from './hosted-view.ts';

/** Diff lines shown per file before folding the rest into a count. */
const DIFF_LINES_SHOWN = 40;

export interface Writer {
  write(s: string): unknown;
  isTTY?: boolean;
  /** How many writes went through it (anyone's): a block still last on screen can be redrawn in place. */
  readonly writes?: number;
}

/** A plan block taller than this is printed anew rather than redrawn (it may have scrolled off). */
const PLAN_REDRAW_MAX_ROWS = 20;

export interface RenderOptions {
  quiet: boolean;
  showUsage: boolean;
  showTimers: boolean;
  showReasoning: boolean;
  showShellCalls: boolean;
  /** Stream text as it arrives; otherwise write each response's text once it completed. */
  streamText: boolean;
  /** Lines of live command output shown per command before eliding. */
  maxCommandLines: number;
  /** After "… N more lines": how to see them (the REPL's Ctrl-O); nothing when absent. */
  elidedHint?: string;
  /** Terminal width of the answer's stream: Markdown is wrapped to it. Default 80. */
  columns?: () => number;
  /** Width of the progress stream (command output is folded to it, the plan measured); default `columns`. */
  errColumns?: () => number;
  /** Renders the answer as Markdown (a terminal with colours, no --raw); plain text without. */
  markdown?: MarkdownFactory;
  /** Sources under a cited answer as terminal hyperlinks (ui/hyperlink.ts decides where they work). */
  hyperlinks?: boolean;
}

export function formatUsage(u: TurnUsage): string {
  const cached = u.cachedTokens > 0 ? ` (${u.cachedTokens} cached)` : '';
  const reasoning = u.reasoningTokens > 0 ? ` (${u.reasoningTokens} reasoning)` : '';
  return `tokens: ${u.inputTokens} in${cached} · ${u.outputTokens} out${reasoning}`;
}

const MECHANISM_NAMES = {
  server: 'by the server, in the conversation',
  endpoint: 'by the server (/responses/compact)',
  summary: 'into a summary by the model',
  local: 'from the local record',
} as const;

/** "conversation compacted into a summary by the model: ~7,200 → ~900 tokens" */
export function describeCompaction(ev: Extract<AgentEvent, { type: 'context_compacted' }>): string {
  const n = (tokens: number): string => `~${tokens.toLocaleString('en-US')}`;
  return `conversation compacted ${MECHANISM_NAMES[ev.mechanism]}: ${n(ev.tokensBefore)} → ${n(ev.tokensAfter)} tokens`;
}

export class Renderer {
  private pendingText = '';
  private atLineStart = true;
  private inReasoning = false;
  private countdown: NodeJS.Timeout | undefined;
  /** The answer's sanitiser and Markdown stream, for the response being shown. */
  private answer: { clean: TerminalSanitizer | undefined; markdown: MarkdownStream | undefined } | undefined;
  private reasoning = new TerminalSanitizer();
  private output: OutputView | undefined;
  /** A "searching the web…" line is on screen without its newline (a terminal only). */
  private searchLine = false;
  /** The last plan checklist: its rows on screen and the writer's count right after it. */
  private planShown: { rows: number; writes: number } | undefined;
  /** The last progress line: its call, its rows on screen and the writer's count right after it. */
  private progressShown: { callId: string; rows: number; writes: number } | undefined;

  constructor(
    private readonly out: Writer,
    private readonly err: Writer,
    private readonly theme: Theme,
    private readonly opts: RenderOptions,
  ) {}

  private columns(): number {
    return this.opts.columns?.() ?? 80;
  }

  private errColumns(): number {
    return this.opts.errColumns?.() ?? this.columns();
  }

  /** Answer text as it streams: sanitised (on a terminal), then Markdown (when enabled). */
  private streamAnswer(delta: string): void {
    this.answer ??= {
      clean: this.out.isTTY === true ? new TerminalSanitizer() : undefined,
      markdown: this.opts.markdown?.({ columns: () => this.columns() }),
    };
    const clean = this.answer.clean ? this.answer.clean.push(delta) : delta;
    this.writeText(this.answer.markdown ? this.answer.markdown.push(clean) : clean);
  }

  /** The answer so far is complete (a tool call, a notice, the turn's end): flush what is held. */
  private endAnswer(): void {
    const a = this.answer;
    if (!a) return;
    this.answer = undefined;
    const rest = a.clean ? a.clean.end() : '';
    this.writeText(a.markdown ? a.markdown.push(rest) + a.markdown.end() : rest);
  }

  private note(line: string): void {
    if (this.opts.quiet) return;
    this.endAnswer();
    this.endTextLine();
    this.err.write(`${line}\n`);
  }

  private endTextLine(): void {
    if (!this.atLineStart && this.opts.streamText && this.out === this.err) {
      this.out.write('\n');
      this.atLineStart = true;
    }
  }

  private writeText(s: string): void {
    if (s.length === 0) return;
    this.out.write(s);
    this.atLineStart = s.endsWith('\n');
  }

  private endReasoning(): void {
    if (this.inReasoning) {
      const rest = this.reasoning.end();
      if (rest) this.err.write(this.theme.dim(rest));
      this.err.write('\n');
      this.inReasoning = false;
    }
  }

  handle(ev: AgentEvent): void {
    const t = this.theme;
    this.stopCountdown();
    if (this.searchLine && ev.type !== 'web_search') this.endSearchLine();
    switch (ev.type) {
      case 'text_delta':
        this.endReasoning();
        if (this.opts.streamText) this.streamAnswer(ev.delta);
        else this.pendingText += ev.delta;
        break;
      case 'reasoning_delta':
        if (!this.opts.showReasoning || this.opts.quiet) break;
        if (!this.inReasoning) this.err.write(t.dim('thinking: '));
        this.inReasoning = true;
        this.err.write(t.dim(this.reasoning.push(ev.delta)));
        break;
      case 'reasoning_done':
        this.endReasoning();
        break;
      case 'response_cut':
        this.pendingText = '';
        this.endAnswer();
        if (this.opts.streamText && !this.atLineStart) this.writeText('\n');
        this.note(t.yellow(`⚠ response cut off (${sanitizeLine(ev.reason)}); the text above is incomplete`));
        break;
      case 'response_incomplete':
        this.note(t.yellow('⚠ the server ended this response early (output limit or content filter): it may be incomplete'));
        break;
      case 'tool_call':
        // The plan shows itself as a checklist (plan_updated); its call needs no line of its own.
        if (ev.tool === 'update_plan') {
          this.flushText();
          if (!this.atLineStart) this.writeText('\n');
          break;
        }
        if (ev.tool !== 'shell' && this.opts.showShellCalls) {
          this.flushText();
          if (!this.atLineStart) this.writeText('\n');
          if (ev.kind === 'function_call') this.note(t.cyan(`⚙ ${sanitizeLine(ev.title)}`));
          break;
        }
        // Text the model wrote before calling a tool ends its own line, so it never runs into
        // the next response's text on stdout.
        this.flushText();
        if (!this.atLineStart) this.writeText('\n');
        break;
      case 'command_start':
        this.output = new OutputView({
          write: (s) => this.err.write(s),
          style: (s) => t.dim(s),
          keepColors: isColorTheme(t),
          width: Math.max(20, this.errColumns() - 3),
          maxRows: this.opts.maxCommandLines,
        });
        if (this.opts.showShellCalls) this.note(formatCommand(ev.command, t));
        break;
      case 'command_output':
        if (this.opts.showShellCalls && !this.opts.quiet) this.output?.push(ev.chunk, ev.stream);
        break;
      case 'command_done': {
        if (!this.opts.showShellCalls) break;
        const elided = this.output?.end() ?? 0;
        this.output = undefined;
        if (elided > 0) this.err.write(t.dim(`  … ${elided} more lines${this.opts.elidedHint ?? ''}\n`));
        const ok = ev.exitCode === 0 && !ev.timedOut && !ev.interrupted;
        const status = ok ? t.green('✓ exit 0') : ev.backgroundSession !== undefined ? t.dim(`… ${describeResult(ev)}`) : t.red(`✗ ${describeResult(ev)}`);
        const cut = ev.truncatedBytes > 0 ? t.dim(` · ${ev.truncatedBytes} bytes of output cut for the model`) : '';
        this.note(`  ${status}${this.opts.showTimers ? t.dim(` · ${formatDuration(ev.durationMs)}`) : ''}${cut}`);
        break;
      }
      case 'tool_error':
        this.note(t.red(`✗ tool call not run: ${sanitizeLine(ev.message)}`));
        break;
      case 'plan_updated':
        this.showPlan(ev.plan);
        break;
      case 'tool_progress':
        this.showProgress(ev);
        break;
      case 'tool_reused':
        if (this.opts.showShellCalls) this.note(t.dim(`↺ already ran, sending its recorded output: ${sanitizeLine(ev.title)}`));
        break;
      case 'files_changed':
        this.showFileChanges(ev);
        break;
      case 'mcp_call_done': {
        const ok = ev.status === 'ok';
        this.note(
          `  ${ok ? t.green('✓ ok') : t.red(`✗ ${ev.status.replace('_', ' ')}`)}${this.opts.showTimers ? t.dim(` · ${formatDuration(ev.durationMs)}`) : ''}${ev.truncatedBytes > 0 ? t.dim(` · ${ev.truncatedBytes} bytes cut for the model`) : ''}`,
        );
        break;
      }
      case 'save_failed':
        this.note(t.red(`✗ ${sanitizeLine(ev.message)}`));
        break;
      // Hosted tools (ui/hosted-view.ts): one line each; sources go under the answer.
      case 'web_search':
        this.showWebSearch(ev);
        break;
      case 'sources':
        this.showSources(ev.sources);
        break;
      case 'hosted_mcp_tools':
        this.note(remoteMcpToolsLine(ev, t));
        break;
      case 'hosted_mcp_call':
        this.note(remoteMcpCallLine(ev, t));
        break;
      case 'image_generation':
        this.note(imageGenerationLine(ev, t));
        break;
      case 'image_attached':
        this.note(imageAttachedLine(ev, t));
        break;
      case 'retry':
        this.flushText();
        this.startCountdown(sanitizeLine(ev.reason), ev.delayMs, ev.attempt + 1, ev.maxAttempts);
        break;
      case 'chain_restarted':
        this.note(
          t.yellow(
            ev.exact
              ? `⟳ ${sanitizeLine(ev.reason)}: resending the conversation from the local log (nothing runs again)`
              : `⟳ ${sanitizeLine(ev.reason)}: starting a new chain from the saved local context`,
          ),
        );
        break;
      case 'context_notice':
        this.flushText();
        // A notice may quote a server's reason (a failed compaction).
        this.note(t.yellow(`⟳ ${sanitizeLine(ev.message)}`));
        break;
      case 'context_compacted':
        this.note(t.dim(`✓ ${describeCompaction(ev)}`));
        break;
      case 'usage':
        break;
      case 'turn_done': {
        this.flushText();
        if (!this.atLineStart) this.writeText('\n');
        const parts: string[] = [];
        if (this.opts.showUsage) parts.push(formatUsage(ev.usage), formatContextLeft(ev.context));
        if (this.opts.showTimers) parts.push(formatDuration(ev.durationMs));
        if (parts.length > 0) this.note(t.dim(parts.join(' · ')));
        break;
      }
      case 'turn_interrupted':
      case 'turn_failed':
        // What arrived is shown (rendered) before the interruption or failure is reported.
        this.endAnswer();
        break;
      case 'request_start':
        break;
    }
  }

  /**
   * The retry notice. On a terminal it counts down in place once a second until the next
   * event (the retried request starting) replaces it; elsewhere it is one line.
   */
  private startCountdown(reason: string, delayMs: number, attempt: number, max: number): void {
    const line = (leftMs: number): string => this.theme.yellow(`⟳ ${reason} — retrying in ${formatDuration(leftMs)} (attempt ${attempt} of ${max})`);
    if (this.opts.quiet) return;
    this.endAnswer();
    this.endTextLine();
    if (this.err.isTTY !== true || delayMs < 1500) {
      this.err.write(`${line(delayMs)}\n`);
      return;
    }
    const end = Date.now() + delayMs;
    this.err.write(line(delayMs));
    this.countdown = setInterval(() => {
      this.err.write(`\r\x1b[2K${line(Math.max(0, Math.ceil((end - Date.now()) / 1000) * 1000))}`);
    }, 1000);
    this.countdown.unref();
  }

  private stopCountdown(): void {
    if (this.countdown === undefined) return;
    clearInterval(this.countdown);
    this.countdown = undefined;
    this.err.write('\n');
  }

  /**
   * On a terminal a search shows "searching the web…" while it runs and the same line becomes
   * "searched …" when it is done; elsewhere only the finished line is written.
   */
  private showWebSearch(ev: Extract<AgentEvent, { type: 'web_search' }>): void {
    if (this.opts.quiet) return;
    if (ev.status === 'searching') {
      if (this.err.isTTY !== true || this.searchLine) return;
      this.endAnswer();
      this.endTextLine();
      this.err.write(webSearchLine(ev, this.theme));
      this.searchLine = true;
      return;
    }
    if (this.searchLine) {
      this.err.write('\r\x1b[2K');
      this.searchLine = false;
    }
    this.note(webSearchLine(ev, this.theme));
  }

  /**
   * The plan as a checklist. On a terminal, when nothing was written since the previous one (the
   * model updated its plan twice in a row), that one is redrawn in place instead of repeated.
   */
  private showPlan(plan: Extract<AgentEvent, { type: 'plan_updated' }>['plan']): void {
    if (this.opts.quiet) return;
    this.eraseIfLastWritten(this.planShown);
    for (const line of planLines(plan, this.theme)) this.note(line);
    const rows = this.rowsOf(planLines(plan, PLAIN_THEME));
    this.planShown = this.err.writes === undefined || rows > PLAN_REDRAW_MAX_ROWS ? undefined : { rows, writes: this.err.writes };
  }

  /**
   * Erases a block drawn earlier (`rows` rows, the writer's count right after it) when it is still
   * the last thing on a terminal, so its new state is drawn in its place.
   */
  private eraseIfLastWritten(shown: { rows: number; writes: number } | undefined): void {
    const writes = this.err.writes;
    if (shown !== undefined && this.err.isTTY === true && writes !== undefined && writes === shown.writes) {
      this.err.write(`\x1b[${shown.rows}A\r\x1b[J`);
    }
  }

  /** Rows these plain (uncoloured) lines take on screen at the current width. */
  private rowsOf(lines: readonly string[]): number {
    const columns = Math.max(1, this.errColumns());
    return lines.reduce((n, line) => n + Math.max(1, Math.ceil(stringWidth(line) / columns)), 0);
  }

  /**
   * A call's progress is a live status, not a log: on a terminal, when nothing was written since
   * the call's previous progress line, the new state replaces it in place (as the plan checklist
   * does), so a call that reports for minutes keeps one line on screen instead of scrolling
   * everything else away. Where writes are not counted (a pipe, a log file) each state stays on
   * its own line, which is what a log wants. (Tools throttle their reports: tools/mcp/progress.ts.)
   */
  private showProgress(ev: Extract<AgentEvent, { type: 'tool_progress' }>): void {
    if (this.opts.quiet) return;
    const shown = this.progressShown;
    this.eraseIfLastWritten(shown?.callId === ev.callId ? shown : undefined);
    this.note(this.theme.dim(`  ${sanitizeLine(ev.tool)}: ${sanitizeLine(ev.message)}`));
    const rows = this.rowsOf([`  ${sanitizeLine(ev.tool)}: ${sanitizeLine(ev.message)}`]);
    this.progressShown = this.err.writes === undefined ? undefined : { callId: ev.callId, rows, writes: this.err.writes };
  }

  private endSearchLine(): void {
    this.err.write('\n');
    this.searchLine = false;
  }

  /** The numbered sources belong to the answer: they follow its text on the answer's stream. */
  private showSources(sources: Extract<AgentEvent, { type: 'sources' }>['sources']): void {
    this.flushText();
    if (!this.atLineStart) this.writeText('\n');
    // Plain when the answer goes to a file or pipe, whatever stderr is.
    const t = this.out.isTTY === true ? this.theme : PLAIN_THEME;
    this.writeText(`${sourceLines(sources, t, this.opts.hyperlinks === true).join('\n')}\n`);
  }

  /** Writes buffered text of a completed response (non-streaming mode), or ends the streamed one. */
  flushText(): void {
    this.endAnswer();
    if (this.pendingText) {
      this.writeText(this.out.isTTY === true ? sanitizeText(this.pendingText) : this.pendingText);
      this.pendingText = '';
    }
  }

  /** One line per file (`+N -M`), then the diff unless --no-shell-calls asked for summaries only. */
  private showFileChanges(ev: Extract<AgentEvent, { type: 'files_changed' }>): void {
    const t = this.theme;
    if (!ev.ok) {
      this.note(t.red(`✗ ${ev.tool}: ${sanitizeLine(ev.message)}`));
      return;
    }
    for (const c of ev.changes) {
      const name = sanitizeLine(c.movedTo ? `${c.path} → ${c.movedTo}` : c.path);
      this.note(
        `${t.cyan(`${c.operation === 'create' ? 'A' : c.operation === 'delete' ? 'D' : 'M'} ${name}`)} ${t.green(`+${c.added}`)} ${t.red(`-${c.removed}`)}`,
      );
      if (this.opts.showShellCalls && !this.opts.quiet) this.showDiff(c.diff);
    }
  }

  private showDiff(diff: string): void {
    const t = this.theme;
    // Diff lines carry file content: the same sanitiser as command output, no colours of their own.
    const lines = sanitizeText(diff)
      .split('\n')
      .filter((l) => l.length > 0);
    const shown = lines.slice(0, DIFF_LINES_SHOWN);
    for (const l of shown) {
      const coloured =
        l.startsWith('+') && !l.startsWith('+++')
          ? t.green(l)
          : l.startsWith('-') && !l.startsWith('---')
            ? t.red(l)
            : l.startsWith('@@')
              ? t.cyan(l)
              : t.dim(l);
      this.err.write(`  ${coloured}\n`);
    }
    if (lines.length > shown.length) this.err.write(t.dim(`  … ${lines.length - shown.length} more diff lines\n`));
  }
}
