// Bundled and run by bench/compaction.mjs: a scripted session of N turns through the engine and
// its compaction with the real client against an in-process emulator, once per mechanism and once with an
// unlimited window (the baseline without compaction). Prints one JSON object on stdout.
import { startEmulator } from '../test/emulator/server.ts';
import { createOpenAIClient } from '../src/model/client.ts';
import { observeUsage } from '../src/model/usage-observer.ts';
import { factKeys, factValue, scriptedMessage, startSession } from '../test/compaction/session.ts';

const TURNS = Number(process.env.COMPACTION_TURNS ?? 200);
const WINDOW = Number(process.env.COMPACTION_WINDOW ?? 8000);

interface Case { name: string; windowTokens: number | null; contextManagement: boolean; compactEndpoint: boolean }
const CASES: Case[] = [
  { name: 'baseline (no window limit)', windowTokens: null, contextManagement: true, compactEndpoint: true },
  { name: 'server-side context_management', windowTokens: WINDOW, contextManagement: true, compactEndpoint: true },
  { name: 'POST /responses/compact', windowTokens: WINDOW, contextManagement: false, compactEndpoint: true },
  { name: 'own summary', windowTokens: WINDOW, contextManagement: false, compactEndpoint: false },
];

async function main(): Promise<void> {
  const emu = await startEmulator();
  const results = [];
  for (const c of CASES) {
    emu.requests.length = 0;
    emu.forgetAll();
    emu.configureContext({ windowTokens: c.windowTokens, overflowForm: 'http', contextManagement: c.contextManagement, compactEndpoint: c.compactEndpoint });
    const total = { inputTokens: 0, outputTokens: 0 };
    const client = observeUsage(await createOpenAIClient({ apiKey: 'sk-bench', baseUrl: emu.baseUrl, idleTimeoutMs: 30_000 }), (_model, u) => {
      total.inputTokens += u.inputTokens;
      total.outputTokens += u.outputTokens;
    });
    // The baseline never compacts (auto-compaction off: no context_management either).
    const session = await startSession({
      baseUrl: emu.baseUrl, contextWindow: String(c.windowTokens ?? 1_000_000_000), client,
      ...(c.windowTokens === null ? { autoCompact: 'off' } : {}),
    });
    const started = process.hrtime.bigint();
    let maxContext = 0;
    for (let i = 0; i < TURNS; i++) {
      await session.turn(scriptedMessage(i));
      maxContext = Math.max(maxContext, session.store.state.context_tokens);
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const keys = factKeys(TURNS);
    const recall = await session.turn(`recall: ${keys.join(' ')}`);
    session.close();
    const kept = keys.filter((k) => recall.includes(`${k}=${factValue(k)}`)).length;
    const sessionRequests = emu.requests.slice(0, -1);
    results.push({
      name: c.name,
      requests: sessionRequests.length,
      failedRequests: sessionRequests.filter((r) => r.status !== 200).length,
      compactRequests: sessionRequests.filter((r) => r.path === '/v1/responses/compact').length,
      bytesSent: sessionRequests.reduce((n, r) => n + r.bytes, 0),
      compactions: session.checkpoints.length,
      mechanisms: [...new Set(session.checkpoints.map((cp) => cp.mechanism))],
      inputTokens: total.inputTokens,
      outputTokens: total.outputTokens,
      maxContextTokens: maxContext,
      factsKept: `${kept}/${keys.length}`,
      ms: Math.round(ms),
    });
  }
  await emu.close();
  process.stdout.write(`${JSON.stringify({ turns: TURNS, window: WINDOW, results })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`compaction bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
