// Runs an engine operation (a new turn, a retry, a continuation) with the REPL around it: the
// spinner until the first token, the renderer, Ctrl-C/Ctrl-T → abort, and what the person is told
// when it ends. Session policy (checkpoints, the interruption record) is the engine's.
import { contextLeft, formatContextLeft } from '../../engine/context.ts';
import type { Engine, TurnOutcome } from '../../engine/engine.ts';
import type { AgentEvent } from '../../engine/events.ts';
import { argumentsPreview, type ApprovalQuestion } from '../../tools/hosted/remote-mcp.ts';
import { supportsHyperlinks } from '../../ui/hyperlink.ts';
import { Renderer, type Writer } from '../../ui/render.ts';
import { confirmPrompt } from '../../ui/command-view.ts';
import { sanitizeLine, showControls } from '../../ui/sanitize.ts';
import { terminalOutputPrepared, terminalRenderOptions } from '../../ui/terminal-output.ts';
import type { Decided, PersonQuestion } from '../../engine/questions.ts';
import { askApproval } from './approval-menu.ts';
import { markCodeCacheWorthy } from '../code-cache.ts';
import { say, type ReplContext } from './context.ts';
import { Spinner } from './spinner.ts';
import { turnEndedSignal } from './notify.ts';
import { LastOutput } from './last-output.ts';

export type { TurnOutcome } from '../../engine/engine.ts';

const SILENT_EVENTS = new Set<AgentEvent['type']>(['request_start', 'usage']);

/** Remembers whether the last thing written ended a line, so the spinner never overwrites text. */
class LineTracker implements Writer {
  atLineStart = true;
  writes = 0;
  constructor(private readonly out: NodeJS.WriteStream) {}
  get isTTY(): boolean {
    return this.out.isTTY;
  }
  write(s: string): boolean {
    if (s.length > 0) this.atLineStart = s.endsWith('\n');
    this.writes++;
    return this.out.write(s);
  }
}

/** ` · queued: "next ques…"` — typed during the turn, sent when it ends (Ctrl-U takes it back). */
function queuedNote(raw: string): string {
  const text = raw.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
  if (text === '') return '';
  return ` · queued: "${sanitizeLine(text.length > 30 ? `${text.slice(0, 29)}…` : text)}" (Ctrl-U drops it)`;
}

/**
 * What the runner needs of the REPL: everything but the engine, so the runner exists before the
 * engine is built (the engine's `emit` and `answer` are the runner's) and no late binding is needed.
 */
export type RunnerContext = Pick<ReplContext, 'cli' | 'env' | 'out' | 'theme' | 'term' | 'session' | 'costs' | 'hooks' | 'cwd' | 'announcedCwd'>;

export class TurnRunner {
  private readonly spinner: Spinner;
  private readonly writer: LineTracker;
  private renderer: Renderer;
  private controller: AbortController | undefined;
  private alwaysRun = false;
  /** The output of the last command, in full (Ctrl-O at the prompt). */
  readonly lastOutput = new LastOutput();

  constructor(private readonly ctx: RunnerContext) {
    this.spinner = new Spinner(ctx.out, ctx.theme, undefined, () => queuedNote(ctx.term.queued));
    this.writer = new LineTracker(ctx.out);
    this.renderer = this.newRenderer();
  }

  get busy(): boolean {
    return this.controller !== undefined;
  }

  private newRenderer(): Renderer {
    const c = this.ctx.cli;
    return new Renderer(this.writer, this.writer, this.ctx.theme, {
      quiet: false,
      showUsage: c.showUsage,
      showTimers: c.showTimers,
      showReasoning: c.showReasoning,
      showShellCalls: c.showShellCalls,
      streamText: true,
      maxCommandLines: 12,
      elidedHint: ' (Ctrl-O at the prompt shows them)',
      ...terminalRenderOptions(this.ctx.out, this.ctx.env),
      hyperlinks: supportsHyperlinks(this.ctx.out, this.ctx.env),
    });
  }

  /** The engine's `emit`. */
  readonly emit = (ev: AgentEvent): void => {
    if (!SILENT_EVENTS.has(ev.type)) this.spinner.stop();
    this.renderer.handle(ev);
    if (ev.type === 'command_start') this.lastOutput.start(ev.callId, ev.command);
    else if (ev.type === 'command_output') this.lastOutput.push(ev.callId, ev.chunk, ev.stream);
    else if (ev.type === 'command_done') this.lastOutput.done(ev.callId);
    if (ev.type === 'request_start' && this.writer.atLineStart) this.spinner.start();
    if (ev.type === 'turn_done') {
      markCodeCacheWorthy();
      this.ctx.costs.onTurnDone(ev.responseId, ev.usage, this.ctx.session.state.usage.turns);
      this.ctx.announcedCwd = this.ctx.cwd;
    }
  };

  /**
   * The engine's questions (its one channel, engine/questions.ts): a command approval, an
   * escalation or a sandbox re-run gets the menu of approval-menu.ts; a call to confirm (untrusted,
   * /init's patches) and a remote MCP approval get their one-line questions.
   */
  readonly answerQuestion = async (q: PersonQuestion): Promise<Decided> => {
    // "always" earlier this session: later calls to confirm run unasked.
    if (q.kind === 'confirm' && this.alwaysRun) return { answer: { kind: 'once' }, decidedBy: 'person' };
    this.notify(
      q.kind === 'sandbox_refusal'
        ? 'agentx asks whether to run a command without the sandbox'
        : q.kind === 'remote_mcp'
          ? 'agentx needs your permission for a remote MCP call'
          : q.kind === 'confirm'
            ? 'agentx needs your permission to run a tool call'
            : 'agentx needs your permission to run a command',
    );
    this.spinner.stop();
    if (!this.writer.atLineStart) this.writer.write('\n');
    if (q.kind === 'confirm') return this.confirm(q);
    if (q.kind === 'remote_mcp') return this.approveRemote(q.remote);
    const decided = await askApproval(q, { term: this.ctx.term, out: this.ctx.out, theme: this.ctx.theme, write: (t) => this.writer.write(t) });
    if (decided.cancelled) this.controller?.abort();
    return { answer: decided.answer, decidedBy: decided.decidedBy };
  };

  /** A call to confirm: yes / no / always for this session (Esc/Ctrl-C: no, and the turn stops). */
  private async confirm(q: PersonQuestion): Promise<Decided> {
    const t = this.ctx.theme;
    if (q.tool === 'shell') this.writer.write(confirmPrompt(q.commands, t));
    else {
      for (const line of q.preview) this.writer.write(`  ${sanitizeLine(line)}\n`);
      this.writer.write(`${t.yellow('?')} ${q.tool} ${t.cyan(showControls(q.title))}  ${t.bold('[y]es / [n]o / [a]lways')}: `);
    }
    const answer = await this.ctx.term.askKey(['y', 'n', 'a']);
    this.writer.write(`${answer === 'cancel' ? 'cancelled' : answer}\n`);
    if (answer === 'cancel') this.controller?.abort();
    if (answer === 'a') this.alwaysRun = true;
    return { answer: { kind: answer === 'y' || answer === 'a' ? 'once' : 'no' }, decidedBy: 'person' };
  }

  /** A remote MCP server's approval request: the person says yes or no (Esc/Ctrl-C: no, and the turn stops). */
  private async approveRemote(remote: ApprovalQuestion): Promise<Decided> {
    const t = this.ctx.theme;
    // Names and arguments come from the server: control characters are shown, never obeyed.
    this.writer.write(
      `${t.yellow('?')} remote MCP server ${t.cyan(showControls(remote.server))} wants to run ${t.cyan(showControls(remote.tool))} ${showControls(argumentsPreview(remote.arguments))}  [y]es / [n]o: `,
    );
    const answer = await this.ctx.term.askKey(['y', 'n']);
    this.writer.write(`${answer === 'cancel' ? 'cancelled' : answer}\n`);
    if (answer === 'cancel') this.controller?.abort();
    return answer === 'y'
      ? { answer: { kind: 'once' }, decidedBy: 'person' }
      : { answer: { kind: 'no' }, decidedBy: 'person', reason: 'the user declined this call' };
  }

  /** Notification hooks: the person is asked something (not awaited: the question is shown at once). */
  notify(message: string): void {
    const hooks = this.ctx.hooks;
    if (hooks?.has('Notification') === true) void hooks.run({ event: 'Notification', message });
  }

  /** Aborts the running turn (Ctrl-C, Ctrl-T, SIGINT, SIGTERM). */
  interrupt(): void {
    this.controller?.abort();
  }

  async run(operation: (signal: AbortSignal) => Promise<TurnOutcome>): Promise<TurnOutcome> {
    this.ctx.costs.beginTurn();
    const started = Date.now();
    const outcome = await this.interruptible(operation);
    // A long turn has ended while the person may be looking elsewhere (notify.ts).
    if (this.ctx.out.isTTY && outcome.kind !== 'interrupted')
      this.ctx.out.write(turnEndedSignal(this.ctx.env, Date.now() - started, 'agentx: the turn has finished'));
    if (outcome.kind !== 'done' && !this.writer.atLineStart) this.writer.write('\n');
    const t = this.ctx.theme;
    if (outcome.kind === 'failed') say(this.ctx, t.red(`✗ request failed: ${sanitizeLine(outcome.failure.message)}`));
    if (outcome.kind === 'blocked') say(this.ctx, t.red(`✗ not sent: a UserPromptSubmit hook blocked the message: ${sanitizeLine(outcome.reason)}`));
    if (outcome.kind === 'interrupted') {
      say(this.ctx, t.yellow('⏹ interrupted: nothing was added to the conversation; the model will be told next time (↑ recalls your message)'));
    }
    return outcome;
  }

  /** /compact: the engine compacts now, with the spinner and Ctrl-C; the renderer announces the result. */
  async compact(engine: Engine): Promise<void> {
    const outcome = await this.interruptible((signal) => {
      this.spinner.start('compacting the conversation…');
      return engine.compact(signal);
    });
    const t = this.ctx.theme;
    if (outcome.kind === 'compacted') say(this.ctx, t.dim(formatContextLeft(contextLeft(outcome.tokensAfter, engine.contextWindow()))));
    else if (outcome.kind === 'not_compacted') say(this.ctx, t.yellow(`nothing compacted: ${sanitizeLine(outcome.reason)}`));
    else say(this.ctx, t.yellow('⏹ interrupted: the conversation is as it was'));
  }

  /** Runs an engine operation with its own abort signal, the spinner stopped when it ends. */
  private async interruptible<T>(operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.controller = controller;
    // The REPL draws its prompt before the Markdown renderer is loaded (after-prompt.ts).
    await terminalOutputPrepared();
    this.renderer = this.newRenderer();
    this.ctx.term.setInterruptHandler(() => controller.abort());
    try {
      return await operation(controller.signal);
    } finally {
      this.spinner.stop();
      this.ctx.term.setInterruptHandler(undefined);
      this.controller = undefined;
    }
  }
}
