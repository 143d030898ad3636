// One crash-fuzz lane: a project directory with its own emulator, an interactive agentx that is
// killed and restarted over and over, and one-shots killed beside it. After every kill and
// every restart the lane checks the invariants of SPEC §3 and records what it saw in the tally.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Emulator } from '../../emulator/server.ts';
import { CLI, storedResponse, type Sandbox } from '../../e2e/harness.ts';
import { KEY, spawnAgentx, type PtyRun } from '../../e2e/pty.ts';
import { parseState, type SessionState } from '../../../src/store/state.ts';
import { CHECKPOINT_FILE, STATE_FILE } from '../../../src/store/store.ts';
import { between, pick, type Rng, type Tally } from './env.ts';
import { checkSessionFiles, hasStackTrace, isolatedFiles, ledgerCounts, processesWith, readIf, tempFiles, waitUntil } from './checks.ts';
import { ONESHOT_PHASES, INTERACTIVE_PHASES, planFor, tokensIn } from './plans.ts';

const PROMPT = /\S+@\S+:\S*> /;
const PENDING_MENU = 'How do you want to go on?';
const FAILED_MENU = 'What now?';
const ROLLBACK_MENU = 'Roll back to which checkpoint?';
const STOP = new RegExp(`${PENDING_MENU.replace('?', '\\?')}|${FAILED_MENU.replace('?', '\\?')}|${ROLLBACK_MENU.replace('?', '\\?')}|${PROMPT.source}`);
// Menu items as the menu echoes the choice ("→ item"); waiting for that echo keeps the driver in
// step with the screen (a menu redraws its title on every key, so the title alone is ambiguous).
const PENDING_CHOICES = ['Continue — tell', 'Continue, ask first', 'Retry — run', 'New session'];
const FAILED_CHOICES = ['Retry — send', 'New chain', 'Rollback', 'Clear', 'Cancel'];
const WAIT_MS = 30_000;
/** Choices whose menu asks to type "yes" first (src/frontends/repl/recovery.ts). */
const CONFIRMED_CHOICES = new Set(['New session', 'Clear']);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Returns once agentx (`pid`) has started its (skip+1)-th atomic write in `dir` (a temp file of
 * its pid appeared), so the kill that follows lands inside a write or just after it. Polls as
 * fast as the event loop allows; the emulator serving agentx runs in this same loop.
 */
async function nthWrite(dir: string, pid: number, skip: number, maxMs: number): Promise<boolean> {
  const mine = `.tmp-${pid}-`;
  const seen = new Set<string>();
  const end = Date.now() + maxMs;
  while (Date.now() < end) {
    for (const f of readdirSync(dir)) {
      if (!f.includes(mine) || seen.has(f)) continue;
      seen.add(f);
      if (seen.size > skip) return true;
    }
    await new Promise((r) => setImmediate(r));
  }
  return false;
}

export class Lane {
  repl: PtyRun | undefined;
  /** Every screen and stream this lane produced, for the secret scan. */
  readonly outputs: Record<string, string> = {};
  /** Extra ledger appearances allowed per token: one per Retry of a call journaled `started`. */
  private readonly allowed = new Map<string, number>();
  private readonly issued = new Set<string>();
  private readonly finals = new Map<string, boolean>();
  private readonly seeded = new Set<string>();
  private pendingChoice = 0;
  private failedChoice = 0;
  private unanswered: string | undefined;
  private processes = 0;
  /** Tokens in the ledger more than once (each allowed by a Retry), for the report. */
  repeats = 0;
  readonly marker: string;

  constructor(
    readonly id: number,
    readonly emu: Emulator,
    readonly sb: Sandbox,
    readonly tally: Tally,
    readonly rng: Rng,
  ) {
    this.marker = `fzm${process.pid}x${id}x${Math.floor(rng() * 1e9).toString(36)}`;
  }

  private get dir(): string {
    return this.sb.cwd;
  }

  /**
   * A large but valid state to start from (20 checkpoints with long messages, a full
   * transcript), so each state write takes long enough for kills to land inside some.
   */
  async seed(): Promise<void> {
    const head = await storedResponse(this.emu, 'seed');
    const usage = { inputTokens: 10, cachedTokens: 0, outputTokens: 5, reasoningTokens: 0, turns: 1 };
    const long = (c: string): string => `${c} `.repeat(3500);
    const history = Array.from({ length: 20 }, (_, i) => ({
      response_id: i === 19 ? head : `resp_seed${this.id}x${i}`,
      timestamp: new Date().toISOString(),
      user_preview: `seed ${i}`,
      assistant_preview: 'ok',
      usage: { ...usage, turns: i + 1 },
      last_user_message: long('u'),
      last_assistant_message: long('a'),
    }));
    for (const h of history) this.seeded.add(h.response_id);
    const transcript = Array.from({ length: 4 }, (_, i) => ({ role: 'assistant', text: long(`t${i}`).slice(0, 15_000), response_id: head }));
    const state = {
      version: 1,
      response_id: head,
      usage: { ...usage, turns: 20 },
      last_user_message: 'seed',
      last_assistant_message: 'ok',
      history,
      transcript,
    };
    writeFileSync(join(this.dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  }

  private record(name: string, text: string): void {
    this.outputs[`${name} #${++this.processes}`] = text;
    this.tally.expect(`no stack trace reaches the user (${name})`, !hasStackTrace(text), text.slice(-300));
  }

  private readState(): SessionState | undefined {
    const text = readIf(join(this.dir, STATE_FILE));
    if (text === undefined) return undefined;
    const parsed = parseState(text);
    return parsed.ok ? parsed.state : undefined;
  }

  /** A response that completed on the server and asked for no tools: the end of a user turn. */
  private async isFinal(id: string): Promise<boolean> {
    if (this.seeded.has(id)) return true;
    const known = this.finals.get(id);
    if (known !== undefined) return known;
    let final = false;
    if (this.emu.requests.some((r) => r.responseId === id && r.completed === true)) {
      const res = await fetch(`${this.emu.baseUrl}/responses/${id}`, { headers: { authorization: 'Bearer check' } });
      const body = (await res.json()) as { output?: { type?: string }[] };
      final = res.ok && !(body.output ?? []).some((o) => o.type === 'shell_call' || o.type === 'function_call');
    }
    this.finals.set(id, final);
    return final;
  }

  /** SPEC §3.6: a failed (or cut, or never completed) response never enters history or the checkpoint. */
  private async checkHistory(state: SessionState | undefined, where: string): Promise<void> {
    for (const h of state?.history ?? []) {
      this.tally.expect(`${where}: history holds only completed turns`, await this.isFinal(h.response_id), h.response_id);
    }
    const cp = readIf(join(this.dir, CHECKPOINT_FILE));
    if (cp !== undefined) {
      const id = (JSON.parse(cp) as { response_id: string }).response_id;
      this.tally.expect(`${where}: the checkpoint is a completed turn`, await this.isFinal(id), id);
    }
  }

  /** Exactly-once: a token appears once, plus once per Retry of a call that had `started`. */
  checkLedger(where: string): void {
    const counts = ledgerCounts(join(this.dir, 'ledger'));
    this.repeats = [...counts.values()].filter((n) => n > 1).length;
    for (const [token, n] of counts) {
      this.tally.expect(`${where}: ledger line is a token this run issued`, this.issued.has(token), token);
      const limit = 1 + (this.allowed.get(token) ?? 0);
      this.tally.expect(`${where}: ${token} ran at most ${limit}×`, n <= limit, `${n}×`);
    }
  }

  private startedTokens(): string[] {
    const state = this.readState();
    return (state?.pending_tool_calls ?? [])
      .filter((c) => c.status === 'started')
      .flatMap((c) => tokensIn(c.type === 'shell_call' ? c.action.commands.join('\n') : ''));
  }

  /** Everything that must hold right after agentx was SIGKILLed. */
  private async afterKill(pid: number, message: string, where: string): Promise<void> {
    this.tally.runs++;
    const gone = await waitUntil(() => processesWith(this.marker).length === 0, 8000, 50);
    this.tally.expect(`${where}: no command outlives agentx`, gone, processesWith(this.marker).join(' | '));
    if (tempFiles(this.dir).some((f) => f.includes(`.tmp-${pid}-`))) this.tally.count('kills that landed inside a state write (its temp file was left)');
    const state = checkSessionFiles(this.dir, this.tally, where);
    await this.checkHistory(state, where);
    this.checkLedger(where);
    const answered = state?.history.some((h) => h.last_user_message === message) ?? false;
    this.unanswered = answered ? undefined : message;
    if (!answered) {
      const history = readIf(join(this.sb.home, '.agentx_history')) ?? '';
      this.tally.expect(`${where}: the unanswered message is in the input history`, history.includes(message), message);
    }
    this.emu.clearQueue();
  }

  /** Starts agentx and answers whatever a dead predecessor left, until the prompt is ready. */
  async ensureRepl(): Promise<void> {
    while (this.repl === undefined) await this.startOnce();
  }

  private async kill(a: PtyRun, name: string): Promise<void> {
    a.kill('SIGKILL');
    await a.exited;
    this.record(name, a.screen());
  }

  /** Picks menu item `index` (or, with -1, confirms the highlighted one already sent) and waits for its echo. */
  private async choose(a: PtyRun, index: number, items: string[]): Promise<boolean> {
    if (index >= 0) {
      a.write(String(index + 1));
      a.write(KEY.enter);
      // Destructive choices (New session, Clear) ask for a typed "yes" before they are taken.
      if (CONFIRMED_CHOICES.has(items[index] ?? '')) {
        const asked = await a.waitFor('Type "yes" to confirm', WAIT_MS).then(
          () => true,
          () => false,
        );
        if (asked) a.write(`yes${KEY.enter}`);
      }
    }
    const echoed = await a.waitFor(`→ ${items[index] ?? ''}`, WAIT_MS).then(
      () => true,
      () => false,
    );
    if (!echoed) {
      this.tally.fail(`menu choice ${items[index] ?? 'Enter'} was not taken\n--- screen ---\n${a.screen().slice(-1500)}`);
      await this.kill(a, 'stuck menu');
    }
    return echoed;
  }

  private async startOnce(): Promise<void> {
    const a = spawnAgentx(this.sb);
    const offered = this.unanswered;
    let shown = false;
    let resumeKill = false;
    for (let stops = 0; ; stops++) {
      const stop = await a.waitFor(STOP, WAIT_MS).catch((err: Error) => err);
      if (stop instanceof Error || stops > 8) {
        this.tally.fail(`restart did not reach the prompt: ${stop instanceof Error ? stop.message : 'too many menus'}`);
        await this.kill(a, 'stuck restart');
        this.unanswered = undefined;
        return;
      }
      // The pending-calls menu names the turn ("…"), the failed-request menu the kept message.
      if (offered !== undefined && (a.screen().includes(`("${offered}")`) || a.screen().includes(`Your message is kept: "${offered}"`))) shown = true;
      if (stop === PENDING_MENU) {
        const choice = this.pendingChoice++ % PENDING_CHOICES.length;
        this.tally.count(`pending menu: ${PENDING_CHOICES[choice]}`);
        if (choice === 2) {
          for (const t of this.startedTokens()) {
            this.allowed.set(t, (this.allowed.get(t) ?? 0) + 1);
            this.tally.count('calls journaled `started` that Retry may run again');
          }
        }
        if (!(await this.choose(a, choice, PENDING_CHOICES))) return;
        resumeKill = choice !== 3 && this.rng() < 0.3;
      } else if (stop === FAILED_MENU) {
        const choice = this.failedChoice++ % FAILED_CHOICES.length;
        this.tally.count(`failed-request menu: ${FAILED_CHOICES[choice]}`);
        if (!(await this.choose(a, choice, FAILED_CHOICES))) return;
        resumeKill = choice <= 1 && this.rng() < 0.3;
      } else if (stop === ROLLBACK_MENU) {
        this.tally.count('rollback menu: newest checkpoint');
        a.write(KEY.enter);
        if (!(await this.choose(a, -1, []))) return;
      } else {
        break;
      }
      if (resumeKill) {
        // Killed again while the chosen recovery runs: the journal must hold up a second time.
        await sleep(between(this.rng, 0, 400));
        const now = this.readState();
        const message = offered ?? now?.pending_transaction?.user_message ?? now?.last_user_message ?? '';
        this.tally.count('kills during a resumed turn');
        await this.kill(a, 'killed while resuming');
        await this.afterKill(a.pid, message, 'after a kill while resuming');
        return;
      }
    }
    const screen = a.screen();
    this.tally.expect('restart shows no state warning', !/could not be used|cannot save|invalid/.test(screen), screen.slice(-400));
    if (offered !== undefined && !shown) {
      // Not in a menu: ↑ must recall it (the input history is written before the turn starts).
      a.write(KEY.up);
      const recalled = await a.waitFor(offered, 5000).then(
        () => true,
        () => false,
      );
      this.tally.expect('the unanswered message is offered again (↑ recalls it)', recalled, `${offered}\n--- screen ---\n${a.screen().slice(-1500)}`);
      a.write(KEY.ctrlC);
      await a.waitFor(PROMPT, WAIT_MS).catch(() => undefined);
    }
    if (offered !== undefined) this.tally.count('unanswered messages offered again');
    this.unanswered = undefined;
    const state = checkSessionFiles(this.dir, this.tally, 'after restart');
    await this.checkHistory(state, 'after restart');
    this.checkLedger('after restart');
    this.repl = a;
  }

  /** One interactive turn killed at a random moment of `phase`. */
  async interactive(run: string): Promise<void> {
    await this.ensureRepl();
    const a = this.repl;
    if (a === undefined) return;
    const phase = pick(this.rng, INTERACTIVE_PHASES);
    const plan = planFor(phase, this.rng, run, this.marker, true);
    for (const t of plan.tokens) this.issued.add(t);
    const message = `fuzz ${run} ${phase}`;
    this.emu.enqueue(...plan.steps);
    const n0 = this.emu.requests.length;
    a.line(message);
    if (phase === 'idle') {
      await a
        .waitFor(/tokens: /, WAIT_MS)
        .then(() => a.waitFor(PROMPT, WAIT_MS))
        .catch((e: Error) => this.tally.fail(`idle turn: ${e.message}`));
    } else {
      const sent = await waitUntil(() => this.emu.requests.length > n0, WAIT_MS);
      this.tally.expect(`the ${phase} turn reached the server`, sent, `\n--- screen ---\n${a.screen().slice(-1500)}`);
      if (plan.writesToSkip === undefined) await sleep(plan.delayMs);
      else if (await nthWrite(this.dir, a.pid, plan.writesToSkip, 5000)) this.tally.count('kills aimed at a state write');
    }
    this.tally.count(`interactive kills during ${phase}`);
    this.repl = undefined;
    await this.kill(a, `interactive ${phase}`);
    await this.afterKill(a.pid, message, `after an interactive kill during ${phase}`);
  }

  /** One one-shot killed at a random moment of `phase`, beside the idle REPL. */
  async oneshot(run: string): Promise<void> {
    await this.ensureRepl();
    const phase = pick(this.rng, ONESHOT_PHASES);
    const plan = planFor(phase, this.rng, run, this.marker, false);
    for (const t of plan.tokens) this.issued.add(t);
    const message = `oneshot ${run} ${phase}`;
    const mainBefore = readIf(join(this.dir, STATE_FILE));
    const cpBefore = readIf(join(this.dir, CHECKPOINT_FILE));
    this.emu.enqueue(...plan.steps);
    const n0 = this.emu.requests.length;
    const child = spawn(process.execPath, [CLI, message], { cwd: this.dir, env: this.sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const sent = await waitUntil(() => this.emu.requests.length > n0, WAIT_MS);
    this.tally.expect(`the one-shot ${phase} request reached the server`, sent);
    if (plan.writesToSkip === undefined) await sleep(plan.delayMs);
    else if (await nthWrite(this.dir, child.pid ?? -1, plan.writesToSkip, 5000)) this.tally.count('kills aimed at a state write');
    child.kill('SIGKILL');
    const code = await exited;
    this.record(`one-shot ${phase}`, out);
    this.tally.count(`one-shot kills during ${phase}`);
    this.tally.runs++;
    const where = `after a one-shot kill during ${phase}`;
    const gone = await waitUntil(() => processesWith(this.marker).length === 0, 8000, 50);
    this.tally.expect(`${where}: no command outlives agentx`, gone, processesWith(this.marker).join(' | '));
    if (tempFiles(this.dir).some((f) => f.includes(`.tmp-${child.pid ?? -1}-`)))
      this.tally.count('kills that landed inside a state write (its temp file was left)');
    checkSessionFiles(this.dir, this.tally, where);
    const own = isolatedFiles(this.dir).filter((f) => f.startsWith(`${STATE_FILE}.oneshot-${child.pid}-`));
    if (code === 0) {
      this.tally.expect(`${where}: a one-shot that finished leaves no isolated file`, own.length === 0, own.join(', '));
    } else if (this.tally.expect(`${where}: the killed one-shot keeps its isolated file`, own.length === 1, own.join(', '))) {
      const kept = parseState(readFileSync(join(this.dir, own[0] ?? ''), 'utf8'));
      const holds = kept.ok && (kept.state.last_user_message === message || kept.state.pending_transaction?.user_message === message);
      this.tally.expect(`${where}: the isolated file keeps the unanswered message`, holds, own[0]);
    }
    // SPEC §3.4: one-shots never touch the interactive session (its REPL is idle meanwhile).
    this.tally.expect(`${where}: the main state is untouched`, readIf(join(this.dir, STATE_FILE)) === mainBefore);
    this.tally.expect(`${where}: the checkpoint is untouched`, readIf(join(this.dir, CHECKPOINT_FILE)) === cpBefore);
    this.checkLedger(where);
    this.emu.clearQueue();
  }

  /** Ends the lane: quit the REPL normally; the lock must go with it. */
  async finish(): Promise<void> {
    const a = this.repl;
    this.repl = undefined;
    if (a === undefined) return;
    a.line('quit');
    const ended = await Promise.race([a.exited.then(() => true), sleep(WAIT_MS).then(() => false)]);
    if (!ended) await this.kill(a, 'quit timed out');
    else this.record('final session', a.screen());
    this.tally.expect('quit exits cleanly', ended);
    this.tally.expect('no lock is left after quit', readIf(join(this.dir, '.agentx_responseid.lock')) === undefined);
    this.checkLedger('at the end');
  }
}
