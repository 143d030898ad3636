// Remembered command rules: `{"prefix": ["npm", "test"], "decision": "allow"}`. A command line is
// judged part by part (shell-words.ts): it is allowed without asking only when every command it runs
// is allowed, a deny on any part denies the line, and a line that cannot be parsed asks.
// Precedence is deny, then ask, then allow, whatever file a rule comes from.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomicSync } from '../../lib/atomic-file.ts';
import { jsonParseError } from '../../lib/json-error.ts';
import { commandName, parseCommandLine, type SimpleCommand } from './shell-words.ts';

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
  /** the line runs something the parser cannot see into (eval, xargs, a here-document, …) */
  unparseable: boolean;
}

// Prefixes that would allow every command. A list of heads is not enough (the audit found
// ["bash","-lc"], ["npx","-y"], ["python3.12"] slipping through), so a prefix is judged by what kind
// of program its head is: a shell or an interpreter (any version suffix) alone, with only options or
// with an eval-type flag; a package runner (npx, npm exec, pnpm dlx, …) with only options; a wrapper
// or a runner of hidden strings in any form (the parser looks through wrappers, so a rule on one is
// either useless or a way around every other rule).
const SHELL_HEADS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'pwsh', 'powershell', 'busybox']);
const INTERPRETER_HEADS = new Set([
  'python',
  'pypy',
  'node',
  'nodejs',
  'deno',
  'bun',
  'perl',
  'ruby',
  'irb',
  'php',
  'lua',
  'luajit',
  'tclsh',
  'wish',
  'rscript',
  'r',
  'julia',
  'osascript',
  'awk',
  'gawk',
  'mawk',
  'nawk',
  'sed',
  'jshell',
  'groovy',
  'scala',
  'elixir',
  'erl',
  'ghci',
  'racket',
  'guile',
  'sbcl',
  'expect',
]);
const WRAPPER_HEADS = new Set([
  'env',
  'sudo',
  'doas',
  'su',
  'exec',
  'eval',
  'command',
  'builtin',
  'xargs',
  'nohup',
  'time',
  'timeout',
  'nice',
  'ionice',
  'stdbuf',
  'setsid',
  'chroot',
  'unshare',
  'nsenter',
  'flock',
  'watch',
  'parallel',
  'script',
  'source',
  '.',
  'strace',
  'ltrace',
  'gdb',
  'valgrind',
  'taskset',
  'chrt',
  'runuser',
  'systemd-run',
]);
const RUNNER_HEADS = new Set(['npx', 'bunx', 'uvx', 'pnpx']);
/** [head, subcommand…]: a package runner that fetches and runs any package */
const RUNNER_SUBCOMMANDS: readonly (readonly string[])[] = [
  ['npm', 'exec'],
  ['npm', 'x'],
  ['pnpm', 'dlx'],
  ['pnpm', 'exec'],
  ['yarn', 'dlx'],
  ['yarn', 'exec'],
  ['bun', 'x'],
  ['pipx', 'run'],
  ['uv', 'run'],
  ['uv', 'tool', 'run'],
  ['deno', 'run'],
  ['deno', 'eval'],
  ['corepack'],
];
/** Programs that run anything through their own options or subcommands: never alone. */
const ALONE_HEADS = new Set(['git', 'ssh', 'docker', 'podman', 'kubectl', 'find', 'make', 'npm', 'pnpm', 'yarn', 'pip', 'pip3', 'uv', 'cargo', 'go']);
/** Flags that make an interpreter run a string: -c, -e, --eval, -p, … (also inside a group like -lc). */
function isEvalFlag(word: string): boolean {
  if (/^--(eval|exec|execute|command|print|eval-string)(=|$)/.test(word)) return true;
  return /^-[A-Za-z]*[ceEprx]/.test(word) && !word.startsWith('--');
}

/** A program's name without its directory and version: /usr/bin/python3.12 → python. */
function programKind(head: string): string {
  return commandName(head)
    .toLowerCase()
    .replace(/[-_.]?\d+(\.\d+)*$/, '');
}

export function tooBroadPrefix(prefix: readonly string[]): string | null {
  if (prefix.length === 0) return 'an empty prefix allows every command';
  if (prefix.some((t) => t.length === 0)) return 'a prefix cannot hold an empty word';
  const head = prefix[0] as string;
  const kind = programKind(head);
  const rest = prefix.slice(1);
  // only options (a shell's `-o pipefail` counts as one option with its value)
  const onlyOptions = rest.every((t, i) => t.startsWith('-') || t.startsWith('+') || /^[-+][oO]$/.test(rest[i - 1] ?? ''));
  const shown = prefix.join(' ');
  if (WRAPPER_HEADS.has(kind) || WRAPPER_HEADS.has(commandName(head))) return `"${shown}" is a wrapper that runs any command`;
  if (SHELL_HEADS.has(kind) || INTERPRETER_HEADS.has(kind)) {
    if (onlyOptions) return `"${shown}" would allow any ${SHELL_HEADS.has(kind) ? 'shell command' : 'program'}`;
    if (rest.some(isEvalFlag)) return `"${shown}" runs a string of code: it would allow anything`;
  }
  if (RUNNER_HEADS.has(kind) && onlyOptions) return `"${shown}" would allow running any package`;
  for (const sub of RUNNER_SUBCOMMANDS) {
    if (sub.every((t, i) => (i === 0 ? kind === t : prefix[i] === t)) && prefix.slice(sub.length).every((t) => t.startsWith('-'))) {
      return `"${shown}" would allow running any package or program`;
    }
  }
  if (prefix.length === 1 && ALONE_HEADS.has(kind)) return `"${head}" alone would allow any command`;
  return null;
}

/** A rule's first word names a program: a deny or ask rule also holds for it run by path (/bin/rm). An
 * allow rule does not (./npm is not npm: a file in the workspace may carry any name). */
function matches(rule: CommandRule, command: SimpleCommand): boolean {
  if (command.words.length < rule.prefix.length) return false;
  return rule.prefix.every((token, i) => {
    const w = command.words[i];
    if (w === undefined || !w.literal) return false;
    if (i === 0 && rule.decision !== 'allow' && !token.includes('/')) return commandName(w.text) === token;
    return w.text === token;
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
  if (!parsed.ok) return { decision: 'ask', networkOnly: false, reasons: [`cannot be parsed (${parsed.reason})`], commands: null, unparseable: true };
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
  if (parsed.commands.length === 0 && decision === 'allow')
    return { decision: 'ask', networkOnly: false, reasons: ['runs no command'], commands: parsed.commands, unparseable: false };
  return { decision, networkOnly: decision === 'allow' && networkOnly, reasons, commands: parsed.commands, unparseable: false };
}

/** A shell call holds several lines (run one after another): the strictest line decides. */
export function decideLines(lines: readonly string[], rules: readonly CommandRule[]): LineVerdict {
  const verdicts = lines.map((l) => decideLine(l, rules));
  const rank: Record<RuleDecision, number> = { allow: 0, ask: 1, deny: 2 };
  let worst: LineVerdict = { decision: 'allow', networkOnly: false, reasons: [], commands: [], unparseable: false };
  for (const v of verdicts) if (rank[v.decision] > rank[worst.decision]) worst = v;
  return {
    decision: worst.decision,
    networkOnly: worst.decision === 'allow' && verdicts.some((v) => v.networkOnly),
    reasons: verdicts.flatMap((v) => v.reasons),
    commands: verdicts.every((v) => v.commands !== null) ? verdicts.flatMap((v) => v.commands ?? []) : null,
    unparseable: verdicts.some((v) => v.unparseable),
  };
}

export type RulesFileLoad =
  | { ok: true; rules: CommandRule[] }
  | { ok: false; error: string /** deny or ask rules cannot be read: refuse to start rather than drop one */; fatal: boolean };

/** Whether a file we cannot read as rules may hold a deny or an ask rule (a restriction we must not drop). */
function mayRestrict(text: string): boolean {
  return /"(deny|ask)"/.test(text);
}

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
    // Unreadable as JSON: we cannot know whether it held a deny or ask rule, so it is fatal when it mentions one.
    return { ok: false, error: jsonParseError(source, text, err), fatal: mayRestrict(text) };
  }
  const list = typeof doc === 'object' && doc !== null ? (doc as { commands?: unknown }).commands : undefined;
  if (!Array.isArray(list)) return { ok: false, error: `${source}: expected {"commands": [...]}`, fatal: mayRestrict(text) };
  const rules: CommandRule[] = [];
  for (const [i, entry] of list.entries()) {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const prefix = e.prefix;
    const decision = e.decision;
    const restricts = decision === 'deny' || decision === 'ask';
    if (!Array.isArray(prefix) || prefix.length === 0 || !prefix.every((t): t is string => typeof t === 'string' && t.length > 0)) {
      return { ok: false, error: `${source}: commands[${i}].prefix must be a non-empty array of words`, fatal: restricts || mayRestrict(text) };
    }
    if (decision !== 'allow' && decision !== 'ask' && decision !== 'deny') {
      return { ok: false, error: `${source}: commands[${i}].decision must be "allow", "ask" or "deny"`, fatal: mayRestrict(text) };
    }
    if (decision === 'allow') {
      const broad = tooBroadPrefix(prefix);
      if (broad !== null) return { ok: false, error: `${source}: commands[${i}]: ${broad}`, fatal: mayRestrict(text) };
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
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err instanceof Error ? err : new Error(String(err));
  }
  if (text !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new Error(`${jsonParseError(path, text, err)}; not overwriting it`);
    }
    if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { commands?: unknown }).commands)) doc = parsed as { commands: unknown[] };
    else throw new Error(`${path}: expected {"commands": [...]}; not overwriting it`);
  }
  doc.commands.push(JSON.parse(ruleJson(rule)) as unknown);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(path, JSON.stringify(doc, null, 2) + '\n', 0o600);
}
