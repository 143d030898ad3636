// The demo's script: one REPL session in a real pty, played section by section against the
// emulator, with the demo's own checks narrated between agentx's screens.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmulatorProcess } from './emulator-process.ts';
import { DemoStepError, PtySession, STEP_TIMEOUT_MS, type Progress } from './session.ts';
import type { Transcript } from './transcript.ts';

export interface DemoWorld {
  readonly cli: string;
  readonly project: string;
  readonly env: NodeJS.ProcessEnv;
  readonly emulator: EmulatorProcess;
  readonly transcript: Transcript;
  readonly progress: Progress;
  /** A unique word for this run (finds this run's processes, nobody else's). */
  readonly runId: string;
  /** The live REPL, replaced when agentx is restarted. */
  repl?: PtySession;
  /** Runs a one-shot `agentx "message"` to completion; stdout and stderr in the order written. */
  oneShot(message: string): Promise<{ code: number | null; output: string }>;
}

export interface Section {
  readonly title: string;
  readonly blurb: string;
  run(world: DemoWorld): Promise<void>;
}

export const GREETING_BEFORE = 'echo "Hello, world"\n';
export const GREETING_AFTER = 'echo "Hello, agentx"\n';

/** The project the demo starts in: a one-line script the session will run and then edit. */
export function seedProject(project: string): void {
  writeFileSync(join(project, 'greet.sh'), GREETING_BEFORE);
  // A packaging step that runs until a `release.ok` file appears: long enough to kill agentx.
  writeFileSync(
    join(project, 'package.sh'),
    'echo "package $1: started" | tee -a build.log\nwhile [ ! -f release.ok ]; do sleep 0.1; done\necho "package $1: done" | tee -a build.log\n',
  );
}

function repl(world: DemoWorld): PtySession {
  if (!world.repl) throw new DemoStepError(world.progress.section, 'use the REPL', 'no REPL is running');
  return world.repl;
}

function startRepl(world: DemoWorld): PtySession {
  world.repl = new PtySession({ cli: world.cli, cwd: world.project, env: world.env, transcript: world.transcript, progress: world.progress });
  return world.repl;
}

/** Polls a condition of the outside world (a file, the process table) until it holds. */
async function until(world: DemoWorld, step: string, holds: () => boolean, timeoutMs = STEP_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new DemoStepError(world.progress.section, step, `not true after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const read = (world: DemoWorld, file: string): string => {
  const path = join(world.project, file);
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
};

function check(world: DemoWorld, step: string, ok: boolean, detail: string): void {
  if (!ok) throw new DemoStepError(world.progress.section, step, detail);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A top-level field of a JSON file in the project (the session files agentx writes). */
function jsonField(world: DemoWorld, file: string, key: string): unknown {
  const text = read(world, file);
  const parsed: unknown = text === '' ? {} : JSON.parse(text);
  return isRecord(parsed) ? parsed[key] : undefined;
}

/** The statuses of the tool calls the session file holds (what exactly-once depends on). */
function journal(world: DemoWorld): string[] {
  const calls = jsonField(world, '.agentx_responseid', 'pending_tool_calls');
  return Array.isArray(calls) ? calls.map((c) => (isRecord(c) ? String(c.status) : '?')) : [];
}

/** `previous_response_id` of a logged request body (undefined: a new chain). */
function previousResponseId(body: unknown): unknown {
  return isRecord(body) ? body.previous_response_id : undefined;
}

/** Whether a process whose command line holds `marker` runs; null when `ps` is not available. */
function processRunning(marker: string): boolean | null {
  let table: string;
  try {
    table = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' });
  } catch {
    return null;
  }
  return table.split('\n').some((l) => l.includes(marker) && !l.includes('agentx-supervisor'));
}

const toolCall: Section = {
  title: 'A tool call',
  blurb:
    'The model asks for a shell command. agentx journals the call, runs it (in the sandbox\nwhere bubblewrap works) and sends the output back in the same turn.',
  async run(world) {
    const a = startRepl(world);
    await a.atPrompt('agentx starts and shows its prompt');
    a.line('run: sh greet.sh');
    await a.waitFor('$ sh greet.sh', 'the command is shown');
    await a.waitFor('Ran it. Output:\nHello, world', 'the model gets the output');
    await a.atPrompt('the turn ends at the prompt');
  },
};

const edit: Section = {
  title: 'An edit with apply_patch',
  blurb: 'The model edits a file with a patch. agentx applies it, shows the diff, and tells the model\nwhat changed.',
  async run(world) {
    const a = repl(world);
    world.transcript.note('the emulator is scripted to answer with an apply_patch call (POST /__emulator/enqueue)');
    await world.emulator.enqueue({
      kind: 'patch',
      text: 'I will change the greeting.',
      patch: '*** Begin Patch\n*** Update File: greet.sh\n@@\n-echo "Hello, world"\n+echo "Hello, agentx"\n*** End Patch',
    });
    a.line('make greet.sh say hello to agentx');
    await a.waitFor(/greet\.sh \+1 -1/, 'the changed file is listed');
    await a.waitFor('apply_patch completed', 'the model is told the patch applied');
    await a.atPrompt('the turn ends at the prompt');
    check(world, 'greet.sh is edited on disk', read(world, 'greet.sh') === GREETING_AFTER, `greet.sh holds ${JSON.stringify(read(world, 'greet.sh'))}`);
    world.transcript.note(`greet.sh on disk: ${GREETING_AFTER.trim()}`);
  },
};

const killed: Section = {
  title: 'agentx killed mid-command, then restarted',
  blurb:
    'One turn, two commands: the first completes, the second is still running when agentx is\nkilled with SIGKILL. On restart the journal shows what finished and what did not, and asks\nhow to go on. Retry runs only the unfinished call; the finished one is never run twice.',
  async run(world) {
    const a = repl(world);
    const build = `build-${world.runId}`;
    await world.emulator.enqueue({
      kind: 'calls',
      calls: [{ commands: ['echo "compile: done" | tee -a build.log'] }, { commands: [`sh package.sh ${build}`] }],
    });
    a.line('build and package it');
    await a.waitFor(`$ sh package.sh ${build}`, 'the second command starts');
    await a.waitFor(`package ${build}: started`, 'the second command is running');
    a.flush();
    world.transcript.note(`kill -9 ${a.pid}   (agentx itself, while "sh package.sh" runs)`);
    a.kill('SIGKILL');
    await a.exited;
    const marker = `package.sh ${build}`;
    await until(world, 'the running command dies with agentx', () => processRunning(marker) !== true);
    world.transcript.note(
      processRunning(marker) === null
        ? '(ps is not available here: the demo cannot show that the command died with agentx)'
        : 'the command died with agentx: no orphan goes on working behind your back',
    );
    const statuses = journal(world);
    check(world, 'the journal holds one completed and one started call', statuses.join() === 'completed,started', `journal: ${statuses.join()}`);
    world.transcript.note(`journal in .agentx_responseid: compile ${statuses[0]}, package ${statuses[1]}`);
    writeFileSync(join(world.project, 'release.ok'), '');
    world.transcript.note('(release.ok created, so package.sh can finish when it runs again)');
    world.transcript.command('agentx');

    const b = startRepl(world);
    await b.waitFor('stopped in the middle of a turn', 'agentx reports the interrupted turn');
    await b.waitFor('How do you want to go on?', 'the pending-call menu');
    await b.choose('Retry', 'choose Retry');
    await b.waitFor('already ran, sending its recorded output', 'the completed call is not run again');
    await b.waitFor('Ran it. Output:', 'the turn continues');
    await b.atPrompt('the turn ends at the prompt');
    const log = read(world, 'build.log');
    const compiles = log.split('\n').filter((l) => l === 'compile: done').length;
    check(world, 'compile ran exactly once', compiles === 1 && log.includes(`package ${build}: done`), `build.log:\n${log}`);
    world.transcript.note(`build.log:\n  ${log.trim().split('\n').join('\n  ')}`);
    world.transcript.note('compile ran once; package ran again only because you chose Retry');
  },
};

const rollback: Section = {
  title: '/rollback',
  blurb:
    'Every answered turn is a checkpoint. /rollback takes the conversation back to one of them and,\nwhen the tool calls changed files since, asks whether to put those files back too (it shows them first);\n/rollback undo reverses it.',
  async run(world) {
    const a = repl(world);
    a.line('/rollback');
    await a.waitFor('Roll back to which checkpoint?', 'the checkpoint menu');
    await a.choose(2, 'choose checkpoint 2, the edit');
    await a.waitFor('Files changed since then:', 'agentx lists the files the later turn changed');
    await a.choose('Conversation and files', 'restore the conversation and the files');
    await a.waitFor('✓ files: restored', 'agentx puts the files back');
    await a.waitFor('Rolled back to checkpoint 2', 'agentx confirms the rollback');
    await a.atPrompt('back at the prompt');
    world.transcript.note('the next message continues from the edit: the build turn is out of the conversation, and its files are as they were');
  },
};

const expiredChain: Section = {
  title: 'Recovery from an expired chain',
  blurb:
    'The server no longer has the conversation (stored responses expire: previous_response_not_found).\nagentx resends the conversation from its own log (calls and outputs included), says so, and the message is answered.',
  async run(world) {
    const a = repl(world);
    await world.emulator.forgetAll();
    world.transcript.note('the emulator forgets every stored response (POST /__emulator/forget)');
    const before = (await world.emulator.requests()).length;
    a.line('what have we done so far?');
    await a.waitFor('resending the conversation from the local log', 'agentx resends the conversation from its log');
    await a.waitFor('You said: what have we done so far?', 'the message is answered');
    await a.atPrompt('the turn ends at the prompt');
    const sent = (await world.emulator.requests()).slice(before);
    const statuses = sent.map((r) => `${r.status}${r.error?.code ? ` ${r.error.code}` : ''}`);
    check(
      world,
      'one rejected request, then one on a new chain',
      statuses.join() === '400 previous_response_not_found,200',
      `requests: ${statuses.join('; ')}`,
    );
    check(
      world,
      'the new chain has no previous_response_id',
      previousResponseId(sent[1]?.body) === undefined,
      'the retried request still named the lost response',
    );
    world.transcript.note(`requests: ${statuses[0]} → ${statuses[1]} (no previous_response_id, the conversation from the log)`);
  },
};

const oneShotBeside: Section = {
  title: 'A one-shot beside the live REPL',
  blurb:
    "With the REPL still open, a one-shot from another shell branches from the REPL's last\ncheckpoint, answers on stdout and leaves the REPL's session untouched.",
  async run(world) {
    const a = repl(world);
    const session = read(world, '.agentx_responseid');
    const checkpoint = jsonField(world, '.agentx_checkpoint', 'response_id');
    const before = (await world.emulator.requests()).length;
    const message = 'run: sh greet.sh';
    world.transcript.command(`agentx "${message}"      # in a second shell, same directory`);
    const shot = await world.oneShot(message);
    world.transcript.terminal(shot.output.replace(/\n$/, '').split('\n'));
    check(world, 'the one-shot answers and exits 0', shot.code === 0 && shot.output.includes('Hello, agentx'), `exit ${shot.code}:\n${shot.output}`);
    const branch = previousResponseId((await world.emulator.requests())[before]?.body);
    check(
      world,
      'the one-shot continues from the checkpoint',
      typeof branch === 'string' && branch === checkpoint,
      `it sent previous_response_id ${String(branch)}, the checkpoint is ${String(checkpoint)}`,
    );
    check(world, 'the REPL session file is untouched', read(world, '.agentx_responseid') === session, '.agentx_responseid changed');
    world.transcript.note(`the one-shot continued from the REPL's checkpoint (${String(checkpoint).slice(0, 16)}…); .agentx_responseid unchanged`);
    a.line('are you still there?');
    await a.waitFor('You said: are you still there?', 'the REPL goes on');
    await a.atPrompt('the turn ends at the prompt');
    a.line('quit');
    const code = await a.exited;
    a.flush();
    check(world, 'quit ends the REPL with exit code 0', code === 0, `exit code ${code}`);
  },
};

export const SECTIONS: readonly Section[] = [toolCall, edit, killed, rollback, expiredChain, oneShotBeside];
