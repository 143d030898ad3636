// Entry point: argv → mode. Imports only what the chosen mode needs (startup is a feature).
import { helpText, isMcpCommandLine, jsonNotFor, jsonRequested, parseArgs } from './cli/args.ts';
import { AgentxError, ConfigError, EXIT_FAILED, UsageError } from './cli/errors.ts';
import { errorLine, jsonLine } from './frontends/json.ts';
import { guardStdio, type StdioGuard } from './frontends/stdio-guard.ts';
import { nodeFs } from './lib/builtins.ts';
import { closeInheritedDescriptors } from './lib/descriptors.ts';
import { VERSION } from './version.ts';

/**
 * Short fixed output (--help, --version) written straight to fd 1. Touching process.stdout
 * creates its stream, which loads Node's stream stack (and for a pipe its net stack): ~25
 * internal modules, most of what `agentx --version` cost over an empty ES module
 * (bench/, process.moduleLoadList). fs comes through require because an ESM import of a builtin
 * evaluates all its exports, fs's lazy stream classes included. Whatever fd 1 refuses (a full
 * non-blocking pipe) goes through process.stdout after all.
 */
function printFixed(text: string): void {
  const { writeSync } = nodeFs();
  const bytes = Buffer.from(text);
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(1, bytes, offset);
  } catch {
    process.stdout.write(bytes.subarray(offset));
  }
}

let stdio: StdioGuard | undefined;

async function main(argv: string[]): Promise<number> {
  // `agentx mcp add|remove|get|login|logout …` has its own flags (--env, --url, --header) and a command after --,
  // and `agentx mcp --help` (`mcp help`, `mcp add --help`, `mcp list -h`) its own help.
  if (isMcpCommandLine(argv)) {
    stdio = guardStdio(process);
    const [{ runMcpCommand }, { sanitizeLines }] = await Promise.all([import('./cli/mcp-command.ts'), import('./ui/sanitize.ts')]);
    // What it prints quotes config files a project may have written: sanitized like any notice.
    return runMcpCommand(argv.slice(1), process.env, (line) => process.stdout.write(`${sanitizeLines(line)}\n`), process.cwd());
  }
  const cli = parseArgs(argv);
  if (cli.command === 'help') {
    printFixed(helpText(VERSION));
    return 0;
  }
  if (cli.command === 'version') {
    printFixed(`agentx ${VERSION}\n`);
    return 0;
  }
  // From here on stdout/stderr streams exist anyway; a failing one must not crash agentx.
  stdio = guardStdio(process);
  if (cli.cwd !== undefined) {
    const { statSync } = await import('node:fs');
    let isDir = false;
    try {
      isDir = statSync(cli.cwd).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) throw new UsageError(`--cwd: not a directory: ${cli.cwd}`);
  }
  if (cli.command === 'setup') {
    const { runSetupCommand } = await import('./config/setup.ts');
    return runSetupCommand(cli, process.env);
  }
  if (cli.command === 'clean') {
    const { cleanOneshots, describeClean } = await import('./store/oneshot-files.ts');
    const dir = cli.cwd ?? process.cwd();
    let line: string;
    try {
      line = describeClean(cleanOneshots(dir, new Date()));
    } catch (err) {
      throw new AgentxError(`cannot clean ${dir}: ${err instanceof Error ? err.message : String(err)}`, EXIT_FAILED);
    }
    process.stdout.write(`${line}\n`);
    return 0;
  }
  if (cli.command === 'mcp-list') {
    const [{ listMcpServers }, { createMcpFetch }, { caFileSetting }, { sanitizeLine }] = await Promise.all([
      import('./tools/mcp/list.ts'),
      import('./frontends/mcp-fetch.ts'),
      import('./config/config.ts'),
      import('./ui/sanitize.ts'),
    ]);
    const list = await listMcpServers({
      projectDir: cli.cwd ?? process.cwd(),
      env: process.env,
      clientVersion: VERSION,
      fetch: createMcpFetch(caFileSetting(process.env)),
    });
    // Server names come from a project's .mcp.json, errors from the servers themselves.
    process.stdout.write(`${list.lines.map(sanitizeLine).join('\n')}\n`);
    return list.ok ? 0 : 1;
  }
  const interactive = cli.message.length === 0 && !cli.readStdin && process.stdin.isTTY === true;
  if (cli.command === 'resume' && !interactive) throw new UsageError('agentx resume starts the interactive session: it needs a terminal');
  if (interactive && cli.json) throw jsonNotFor('the interactive session (agentx with no message)');
  if (!interactive) {
    const { runOneshot } = await import('./frontends/oneshot.ts');
    return runOneshot(cli, process.env);
  }
  const { runRepl } = await import('./frontends/repl/repl.ts');
  return runRepl(cli, process.env);
}

/** Exits once pending output errors have been seen (an EPIPE is reported on a later tick). */
function exit(code: number): void {
  setImmediate(() => process.exit(stdio ? stdio.exitStatus(code) : code));
}

/** One line on stderr and, with --json, the same as an `error` line on stdout (README "JSON output"). */
function report(message: string, kind: string, code: number, hint = ''): void {
  if (json) process.stdout.write(jsonLine(errorLine(kind, message, code)));
  process.stderr.write(`agentx: ${message}${hint}\n`);
  exit(code);
}

// Before anything else: a descriptor agentx inherited (a parent's fd 50 on some file) would
// otherwise reach every command, hook and PTY session, sandboxed or not (lib/descriptors.ts).
closeInheritedDescriptors(process.env);
const argv = process.argv.slice(2);
const json = jsonRequested(argv);
main(argv).then(
  // Exit explicitly: an idle keep-alive socket or an abandoned stdin pipe must not hold the process.
  exit,
  (err: unknown) => {
    if (err instanceof AgentxError) {
      const kind = err instanceof UsageError ? 'usage' : err instanceof ConfigError ? 'config' : 'error';
      // `agentx mcp …` has a help of its own, with the flags of mcp add.
      const help = argv[0] === 'mcp' ? ' (see agentx mcp --help)' : ' (see agentx --help)';
      const reportLine = (message: string): void => report(message, kind, err.exitCode, err instanceof UsageError ? help : '');
      // A usage or configuration error quotes what argv, the environment or a config file holds
      // (a base URL, a path): one sanitized line, like every line from outside.
      void import('./ui/sanitize.ts').then(
        (m) => reportLine(m.sanitizeLine(err.message)),
        () => reportLine(err.message),
      );
      return;
    }
    // An unexpected bug: one line for the user, the stack only with AGENTX_DEBUG_STACK. The
    // message may quote what a server sent: it passes the terminal sanitiser (loaded only here).
    const e = err instanceof Error ? err : undefined;
    const identity = (s: string): string => s;
    void import('./ui/sanitize.ts')
      .then(
        (m) => m.sanitizeLine,
        () => identity,
      )
      .then((clean) => {
        report(`internal error: ${clean(e?.message ?? String(err))}`, 'internal', EXIT_FAILED);
        if (process.env.AGENTX_DEBUG_STACK) process.stderr.write(`${e?.stack ?? ''}\n`);
      });
  },
);
