// One conversation log per session (session-startup.ts openConversationLog): the store keeps tool
// outputs in it and the engine appends and replays exchanges through it, across reconfiguration.
// Real store, real files, the real engine wiring (runtime.ts createTurnDeps), the emulator over
// HTTP+SSE and a real command.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { parseArgs } from '../cli/args.ts';
import { resolveConfig } from '../config/config.ts';
import { Engine } from '../engine/engine.ts';
import type { AgentEvent } from '../engine/events.ts';
import { ONESHOT_POLICY } from '../engine/recovery.ts';
import { conversationLogPath } from '../paths.ts';
import { ConversationLog } from '../store/log/conversation-log.ts';
import { emptyState } from '../store/state.ts';
import { STATE_FILE } from '../store/store.ts';
import { createCommands, createTurnDeps } from './runtime.ts';
import { openConversationLog, openSessionStore } from './session-startup.ts';

let emu: Emulator;
let root: string;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  emu.clearQueue();
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-session-log-')));
  dir = path.join(root, 'project');
  fs.mkdirSync(dir);
  env = {
    PATH: process.env.PATH,
    HOME: path.join(root, 'home'),
    XDG_STATE_HOME: path.join(root, 'state'),
    SHELL: '/bin/sh',
    AGENTX_BASE_URL: emu.baseUrl,
    AGENTX_API_KEY: 'sk-test-session-log-0123456789',
    AGENTX_RETRY_BASE_MS: '20',
  };
});

/** An earlier session's log: one good exchange, then a line a crash cut short. Returns its size. */
function tornLog(): number {
  const file = conversationLogPath(env, env.HOME ?? '', dir);
  new ConversationLog(file).append({
    prev: null,
    response_id: 'resp_earlier',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'earlier' }] }],
    output: [],
    stored: true,
    at: '2026-01-01T00:00:00.000Z',
  });
  fs.appendFileSync(file, '0123456789abcdef {"prev":null,"response_id":"resp_to');
  return fs.statSync(file).size;
}

describe('one conversation log per session', () => {
  it('store and engine share it: a torn tail is repaired and said once, the file is read once, a reconfigured engine keeps it', async () => {
    const size = tornLog();
    const logNotices: string[] = [];
    const events: AgentEvent[] = [];
    const log = openConversationLog(env, dir, (line) => logNotices.push(line));
    const session = openSessionStore({
      dir,
      path: path.join(dir, STATE_FILE),
      log,
      initial: emptyState(),
      persistence: 'durable',
      publishesCheckpoint: true,
      warn: (line) => logNotices.push(`store: ${line}`),
      excluded: () => undefined,
    });
    const cli = parseArgs([]);
    const config = resolveConfig(cli, env);
    const withKey = { ...config, apiKey: config.apiKey ?? '' };
    const commands = createCommands({ config: withKey, env, workspaceRoot: dir, onNotice: () => undefined });
    const deps = () =>
      createTurnDeps({
        config: withKey,
        cli,
        env,
        session,
        log,
        emit: (ev) => events.push(ev),
        policy: ONESHOT_POLICY,
        cwd: () => dir,
        workspaceRoot: dir,
        commands,
      });
    const engine = new Engine(await deps());
    emu.enqueue({ kind: 'shell', commands: ['echo ran'] }, { kind: 'text', text: 'first done' });
    expect((await engine.message('run it', [], new AbortController().signal)).kind).toBe('done');

    const notices = [...logNotices, ...events.flatMap((e) => (e.type === 'context_notice' ? [e.message] : []))];
    expect(notices.filter((n) => n.includes('damaged record'))).toHaveLength(1);
    expect(notices).toHaveLength(1);
    // Both kinds of record went through the one instance: two exchanges and the command's output.
    expect(log.stats.appends).toBe(3);
    // Read once, when the torn tail was repaired; nothing read again after (no second index).
    expect(log.stats.bytesRead).toBe(size);

    // /plan, /setup, MCP tools joining: the engine gets new collaborators, the log stays the same one.
    engine.reconfigure(await deps());
    emu.enqueue({ kind: 'shell', commands: ['echo again'] }, { kind: 'text', text: 'second done' });
    expect((await engine.message('once more', [], new AbortController().signal)).kind).toBe('done');
    expect(log.stats.appends).toBe(6);
    expect(log.stats.bytesRead).toBe(size);
    expect(logNotices).toHaveLength(1);
  });
});
