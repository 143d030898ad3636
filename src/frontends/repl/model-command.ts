// /model: with a name, the model of the next requests (this session); without one, the model in
// use and the models the server offers (GET {baseUrl}/models), or, when the server lists none,
// the model families agentx knows the context window of. Names come from the server: shown
// through the sanitizer, never obeyed.
import { EFFORTS, type Config } from '../../config/config.ts';
import { saveSetup } from '../../config/setup.ts';
import { KNOWN_WINDOWS } from '../../engine/context.ts';
import { errorMessage } from '../../lib/fsutil.ts';
import { createNodeFetch } from '../../model/node-fetch.ts';
import { wireAuth } from '../../model/provider.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { say, type ReplContext } from './context.ts';

/** The server gets this long to answer the list request (it is only a listing). */
const LIST_TIMEOUT_MS = 5_000;
/** Names shown at most (some gateways list hundreds). */
const LIST_MAX = 60;

export type ModelList = { ok: true; ids: string[] } | { ok: false; reason: string };

/** What the list request needs to reach the server the way the model requests do. */
export type ListSettings = Pick<Config, 'baseUrl' | 'provider' | 'azureApiVersion' | 'extraHeaders' | 'caFile'> & { apiKey: string };

/**
 * GET {baseUrl}/models over the API client's own transport (node-fetch.ts: proxies, NO_PROXY,
 * AGENTX_CA_FILE) with the provider's auth (Azure: api-key and api-version) and AGENTX_HEADERS.
 */
export async function listServerModels(s: ListSettings, timeoutMs = LIST_TIMEOUT_MS): Promise<ModelList> {
  const url = `${s.baseUrl.replace(/\/+$/, '')}/models`;
  const auth = wireAuth(s.provider, s.apiKey, s.azureApiVersion);
  const headers: Record<string, string> = { ...s.extraHeaders, authorization: `Bearer ${s.apiKey}` };
  for (const [k, v] of Object.entries(auth.headers)) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  const query = new URLSearchParams(auth.query).toString();
  try {
    const res = await createNodeFetch({ caFile: s.caFile })(query === '' ? url : `${url}?${query}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { ok: false, reason: `GET ${url} answered ${res.status}` };
    const body = (await res.json()) as { data?: unknown };
    const data = Array.isArray(body.data) ? (body.data as unknown[]) : [];
    const ids = data
      .map((m) => (typeof m === 'object' && m !== null && typeof (m as { id?: unknown }).id === 'string' ? (m as { id: string }).id : ''))
      .filter((id) => id !== '');
    return ids.length > 0 ? { ok: true, ids: [...new Set(ids)].sort() } : { ok: false, reason: `GET ${url} listed no models` };
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return { ok: false, reason: `GET ${url} failed (${errorMessage(err)}${cause})` };
  }
}

export async function modelCommand(ctx: ReplContext, arg: string): Promise<void> {
  const t = ctx.theme;
  if (arg !== '') {
    const [name = '', effort, ...rest] = arg.split(/\s+/);
    if (rest.length > 0 || (effort !== undefined && !EFFORTS.includes(effort))) {
      say(ctx, t.red(`usage: /model NAME [EFFORT]; efforts: ${EFFORTS.join(', ')}`));
      return;
    }
    const reasoningEffort = effort ?? ctx.engine.shape.reasoningEffort;
    ctx.engine.setModel({ ...ctx.engine.shape, model: name, reasoningEffort });
    ctx.config = { ...ctx.config, model: name, reasoningEffort };
    // Kept for the next start, in the file /setup writes (the environment still wins over it).
    let saved: string;
    try {
      saveSetup(ctx.config.configFile, { model: name, reasoningEffort: effort });
      saved = `saved in ${ctx.config.configFile}`;
    } catch (err) {
      saved = t.red(`not saved: ${errorMessage(err)}`);
    }
    say(ctx, t.green(`✓ model for the next requests: ${sanitizeLine(name)}${effort === undefined ? '' : `, reasoning effort ${effort}`} (${saved})`));
    return;
  }
  const shape = ctx.engine.shape;
  say(ctx, `model: ${sanitizeLine(shape.model)}${shape.reasoningEffort === undefined ? '' : `, reasoning effort ${sanitizeLine(shape.reasoningEffort)}`}`);
  const list = await listServerModels(ctx.config);
  if (list.ok) {
    const shown = list.ids.slice(0, LIST_MAX).map((id) => (id === shape.model ? t.bold(`${sanitizeLine(id)} *`) : sanitizeLine(id)));
    const more = list.ids.length > LIST_MAX ? t.dim(` … ${list.ids.length - LIST_MAX} more`) : '';
    say(ctx, `models the server offers (${list.ids.length}): ${shown.join(', ')}${more}`);
  } else {
    say(ctx, t.yellow(`The server lists no models: ${sanitizeLine(list.reason)}.`));
    say(ctx, `Model families agentx knows the context window of: ${KNOWN_WINDOWS.flatMap((w) => w.family.split(' / ').map((f) => `${f}*`)).join(', ')}`);
  }
  say(ctx, `reasoning efforts: ${EFFORTS.join(', ')}`);
  say(ctx, t.dim('/model NAME [EFFORT] switches for the next requests and saves the choice in your config file.'));
}
