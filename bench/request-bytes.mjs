// What a turn costs on the wire, per conversation mode: the bytes of each turn's request over one
// 10-turn conversation typed into the REPL, for agentx on a server that stores responses (chained
// with previous_response_id), agentx on a server that stores nothing (every request resends the
// conversation from agentx's log with store:false), and Codex CLI's TUI (which always resends).
// `npm run bench:request-bytes` writes its section of BENCHMARKS.md. REQUEST_BYTES_TURNS (10)
// changes the length. Codex is installed on demand into bench/.peer (BENCH_NO_PEER=1 skips it).
import { cpus, hostname, totalmem } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, startEmulatorProcess, writeBenchSection } from './lib.mjs';
import { driveConversation } from './interactive.mjs';
import { CODEX_VERSION, codexEnv, codexHome, ensurePeer } from './peer.mjs';

const TURNS = Number(process.env.REQUEST_BYTES_TURNS ?? 10);
const CLI = join(REPO, 'bin/agentx.js');
const log = (m) => process.stderr.write(`${m}\n`);
const root = mkdtempSync(join(tmpdir(), 'agentx-request-bytes-'));
let dirs = 0;
const tmp = (name) => mkdtempSync(join(root, `${name}-${dirs++}-`));

/** The turn's own request: tools offered and the newest user message is "turn N: hello". */
function turnRequest(requests, n) {
  return requests.find((r) => {
    const b = r.body;
    if (typeof b !== 'object' || b === null || !Array.isArray(b.tools) || b.tools.length === 0 || r.status !== 200) return false;
    const input = typeof b.input === 'string' ? [{ role: 'user', content: b.input }] : (b.input ?? []);
    const users = input.filter((i) => i.role === 'user');
    return new RegExp(`turn ${n}: hello(?!\\d)`).test(JSON.stringify(users.at(-1) ?? ''));
  });
}

/**
 * @param {string} name
 * @param {{ file: string, args: string[], env: (baseUrl: string) => NodeJS.ProcessEnv, ready: RegExp, stateless?: boolean }} how
 */
async function measure(name, { file, args, env, ready, stateless }) {
  const emu = await startEmulatorProcess(join(REPO, 'dist/emulator.js'), stateless ? ['--stateless'] : []);
  try {
    log(`${name}: ${TURNS} turns`);
    await driveConversation({ file, args, cwd: tmp('project'), env: env(emu.baseUrl), ready, turns: TURNS, warmup: 0 });
    const requests = (await emu.requests()).filter((r) => r.path === '/v1/responses');
    const perTurn = [];
    for (let n = 1; n <= TURNS; n++) {
      const r = turnRequest(requests, n);
      if (!r) throw new Error(`${name}: no request for turn ${n} in the emulator log`);
      perTurn.push({
        bytes: r.bytes,
        items: Array.isArray(r.body.input) ? r.body.input.length : 1,
        chained: typeof r.body.previous_response_id === 'string',
        store: r.body.store,
      });
    }
    return {
      name,
      perTurn,
      total: requests.reduce((s, r) => s + r.bytes, 0),
      requests: requests.length,
      refused: requests.filter((r) => r.status !== 200).length,
    };
  } finally {
    emu.stop();
  }
}

const agentxEnv = (extra) => (baseUrl) => {
  const home = tmp('home');
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CONFIG_HOME: join(home, '.config'),
    AGENTX_API_KEY: 'bench-key',
    AGENTX_BASE_URL: baseUrl,
    AGENTX_MODEL: 'gpt-5',
    LANG: 'C.UTF-8',
    ...extra,
  };
};

const results = [];
try {
  const ready = /> \s*$/;
  results.push(await measure('agentx, server stores responses (chained)', { file: process.execPath, args: [CLI], env: agentxEnv({}), ready }));
  results.push(
    await measure('agentx, server stores nothing (AGENTX_STORE=auto: found at the first refused chain)', {
      file: process.execPath,
      args: [CLI],
      env: agentxEnv({}),
      ready,
      stateless: true,
    }),
  );
  const peer = ensurePeer(log);
  if (peer.ok) {
    results.push(
      await measure(`Codex CLI ${CODEX_VERSION} TUI (always resends)`, {
        file: peer.bin,
        args: [],
        env: (baseUrl) => codexEnv(codexHome(baseUrl, () => tmp('codex-home'))),
        ready: /Ask Codex to do anything|for shortcuts/,
      }),
    );
  } else {
    log(`Codex CLI not measured: ${peer.reason}`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;
const at = (r, n) => `${r.perTurn[n - 1].bytes.toLocaleString('en')} B (${r.perTurn[n - 1].items} items${r.perTurn[n - 1].chained ? ', chained' : ''})`;
const marks = [1, Math.ceil(TURNS / 2), TURNS];
const md = [
  '## Request bytes per turn: stored, stateless, Codex',
  '',
  `Machine: ${hostname()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}. ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC. \`npm run bench:request-bytes\`.`,
  '',
  `One conversation of ${TURNS} turns typed into each agent's interactive UI in a pty ("turn N: hello"; the emulator's default model answers "You said: …"), one emulator process per row (dist/emulator.js; \`--stateless\` for the second row: every previous_response_id is refused, nothing is stored). Bytes are the JSON request bodies as received.`,
  '',
  `| conversation | ${marks.map((n) => `turn ${n}`).join(' | ')} | all requests | requests (refused) |`,
  `|---|${marks.map(() => '---:').join('|')}|---:|---:|`,
  ...results.map((r) => `| ${r.name} | ${marks.map((n) => at(r, n)).join(' | ')} | ${kib(r.total)} | ${r.requests} (${r.refused}) |`),
  '',
  'Stored: each request carries only the new message and chains with `previous_response_id`, so a turn costs the same at turn 10 as at turn 1. Stateless: agentx resends the conversation since the last compaction from its log (`store: false`, prompt_cache_key stable, so a caching server bills the repeated prefix as cached); it grows with the conversation like Codex, which never chains. Codex runs as lean as it can be configured (bench/peer.mjs: a fresh CODEX_HOME, the emulator as its only provider, analytics, plugins, apps, the daemon and update checks off, no retries); most of its bytes are its own instructions and tool schemas, sent again on every request. The refused request of the stateless row is the one chained request that showed the server stores nothing (remembered; `AGENTX_STORE=off` avoids it).',
].join('\n');
writeBenchSection('request-bytes', md);
process.stdout.write(`${md}\n`);
