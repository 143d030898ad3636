// Remembered command rules: `{"prefix": ["npm", "test"], "decision": "allow"}`. A command line is
// judged part by part (shell-words.ts): it is allowed without asking only when every command it runs
// is allowed, a deny on any part denies the line, and a line that cannot be parsed asks.
// Precedence is deny, then ask, then allow, whatever file a rule comes from.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseCommandLine, type SimpleCommand } from './shell-words.ts';

export type RuleDecision = 'allow' | 'ask' | 'deny';

export interface CommandRule {
  prefix: string[];
  decision: RuleDecision;
  /** allow rules only: run sandboxed with the network rather than outside the sandbox */
  network?: boolean;
  /** where the rule comes from, for /permissions: a file path, "session" or "built-in" */
  source: string;
}

export interface LineVerdict {
  decision: RuleDecision;
  /** every part is allowed by rules that all ask for network only */
  networkOnly: boolean;
  /** why, one line per part that decided it (shown to the person and the model) */
  reasons: string[];
  /** the parts the line runs, when it could be parsed */
  commands: SimpleCommand[] | null;
}

/** A prefix that would allow every command (a shell, an interpreter, a wrapper) is never remembered. */
const TOO_BROAD_HEADS = new Set([
  'sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'env', 'sudo', 'doas', 'su', 'exec', 'eval', 'command', 'builtin',
  'xargs', 'nohup', 'time', 'timeout', 'nice', 'stdbuf', 'python', 'python3', 'node', 'deno', 'bun', 'perl',
  'ruby', 'php', 'lua', 'awk', 'find', 'git', 'npx', 'ssh', 'docker', 'busybox',
]);

export function tooBroadPrefix(prefix: readonly string[]): string | null {
  if (prefix.length === 0) return 'an empty prefix allows every command';
  if (prefix.some((t) => t.length === 0)) return 'a prefix cannot hold an empty word';
  const head = prefix[0] as string;
  const base = head.includes('/') ? head.slice(head.lastIndexOf('/') + 1) : head;
  if (prefix.length === 1 && TOO_BROAD_HEADS.has(base)) return `"${head}" alone would allow any command`;
  if (prefix.length === 2 && ['-c', '-e', 'exec', 'run', '-m'].includes(prefix[1] as string) && TOO_BROAD_HEADS.has(base)) {
    return `"${prefix.join(' ')}" would allow any command`;
  }
  return null;
}

function matches(rule: CommandRule, command: SimpleCommand): boolean {
  if (command.words.length < rule.prefix.length) return false;
  return rule.prefix.every((token, i) => {
    const w = command.words[i];
    return w !== undefined && w.literal && w.text === token;
  });
}

function describe(command: SimpleCommand): string {
  return command.words.map((w) => w.text).join(' ');
}

/** The decision for one simple command: the strictest rule that matches, or ask when none does. */
export function decideCommand(command: SimpleCommand, rules: readonly CommandRule[]): { decision: RuleDecision; rule: CommandRule | null } {
  const found = rules.filter((r) => matches(r, command));
  for (const d of ['deny', 'ask', 'allow'] as const) {
    const rule = found.find((r) => r.decision === d);
    if (rule !== undefined) return { decision: d, rule };
  }
  return { decision: 'ask', rule: null };
}

export function decideLine(line: string, rules: readonly CommandRule[]): LineVerdict {
  const parsed = parseCommandLine(line);
  if (!parsed.ok) return { decision: 'ask', networkOnly: false, reasons: [`cannot be parsed (${parsed.reason})`], commands: null };
  let decision: RuleDecision = 'allow';
  let networkOnly = false;
  const reasons: string[] = [];
  for (const command of parsed.commands) {
    const d = decideCommand(command, rules);
    const where = command.substituted ? ' (in a substitution)' : '';
    if (d.decision === 'deny') {
      decision = 'deny';
      reasons.push(`"${describe(command)}"${where} is denied by ${d.rule?.source ?? 'a rule'}`);
    } else if (d.decision === 'ask') {
      if (decision === 'allow') decision = 'ask';
      reasons.push(d.rule === null ? `"${describe(command)}"${where} matches no rule` : `"${describe(command)}"${where} asks by ${d.rule.source}`);
    } else if (d.rule?.network === true) {
      networkOnly = true;
    }
  }
  if (parsed.commands.length === 0 && decision === 'allow') return { decision: 'ask', networkOnly: false, reasons: ['runs no command'], commands: parsed.commands };
  return { decision, networkOnly: decision === 'allow' && networkOnly, reasons, commands: parsed.commands };
}

/** A shell call holds several lines (run one after another): the strictest line decides. */
export function decideLines(lines: readonly string[], rules: readonly CommandRule[]): LineVerdict {
  const verdicts = lines.map((l) => decideLine(l, rules));
  const rank: Record<RuleDecision, number> = { allow: 0, ask: 1, deny: 2 };
  let worst: LineVerdict = { decision: 'allow', networkOnly: false, reasons: [], commands: [] };
  for (const v of verdicts) if (rank[v.decision] > rank[worst.decision]) worst = v;
  return {
    decision: worst.decision,
    networkOnly: worst.decision === 'allow' && verdicts.some((v) => v.networkOnly),
    reasons: verdicts.flatMap((v) => v.reasons),
    commands: verdicts.every((v) => v.commands !== null) ? verdicts.flatMap((v) => v.commands ?? []) : null,
  };
}

export type RulesFileLoad =
  | { ok: true; rules: CommandRule[] }
  | { ok: false; error: string; /** deny rules cannot be read: refuse to start rather than drop one */ fatal: boolean };

/** Reads a rules file. A missing file has no rules; a malformed one is one line naming it. */
export function loadRulesFile(path: string): RulesFileLoad {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, rules: [] };
    return { ok: false, error: `${path}: ${err instanceof Error ? err.message : String(err)}`, fatal: true };
  }
  return parseRulesText(text, path);
}

export function parseRulesText(text: string, source: string): RulesFileLoad {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // Unreadable as JSON: we cannot know whether it held a deny rule, so it is fatal when it mentions one.
    return { ok: false, error: `${source}: ${err instanceof Error ? err.message : String(err)}`, fatal: /"deny"/.test(text) };
  }
  const list = typeof doc === 'object' && doc !== null ? (doc as { commands?: unknown }).commands : undefined;
  if (!Array.isArray(list)) return { ok: false, error: `${source}: expected {"commands": [...]}`, fatal: /"deny"/.test(text) };
  const rules: CommandRule[] = [];
  for (const [i, entry] of list.entries()) {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const prefix = e.prefix;
    const decision = e.decision;
    const isDeny = decision === 'deny';
    if (!Array.isArray(prefix) || prefix.length === 0 || !prefix.every((t): t is string => typeof t === 'string' && t.length > 0)) {
      return { ok: false, error: `${source}: commands[${i}].prefix must be a non-empty array of words`, fatal: isDeny || /"deny"/.test(text) };
    }
    if (decision !== 'allow' && decision !== 'ask' && decision !== 'deny') {
      return { ok: false, error: `${source}: commands[${i}].decision must be "allow", "ask" or "deny"`, fatal: /"deny"/.test(text) };
    }
    if (decision === 'allow') {
      const broad = tooBroadPrefix(prefix);
      if (broad !== null) return { ok: false, error: `${source}: commands[${i}]: ${broad}`, fatal: /"deny"/.test(text) };
    }
    rules.push({ prefix, decision, ...(e.network === true && decision === 'allow' ? { network: true } : {}), source });
  }
  return { ok: true, rules };
}

/** The JSON a rule is saved as (shown to the person before "always allow" writes it). */
export function ruleJson(rule: Omit<CommandRule, 'source'>): string {
  return JSON.stringify({ prefix: rule.prefix, decision: rule.decision, ...(rule.network === true ? { network: true } : {}) });
}

/** Adds a rule to the person's rules file (created 0600, written atomically). Existing rules are kept. */
export function appendRule(path: string, rule: Omit<CommandRule, 'source'>): void {
  let doc: { commands: unknown[] } = { commands: [] };
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { commands?: unknown }).commands)) doc = parsed as { commands: unknown[] };
    else throw new Error(`${path}: expected {"commands": [...]}; not overwriting it`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err instanceof Error ? err : new Error(String(err));
  }
  doc.commands.push(JSON.parse(ruleJson(rule)) as unknown);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(doc, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
