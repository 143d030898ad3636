// Entry point: argv → mode. Imports only what the chosen mode needs (startup is a feature).
import { helpText, parseArgs } from './cli/args.ts';
import { AgentxError, UsageError } from './cli/errors.ts';
import { VERSION } from './version.ts';

async function main(argv: string[]): Promise<number> {
  const cli = parseArgs(argv);
  if (cli.command === 'help') {
    process.stdout.write(helpText(VERSION));
    return 0;
  }
  if (cli.command === 'version') {
    process.stdout.write(`agentx ${VERSION}\n`);
    return 0;
  }
  if (cli.cwd !== undefined) {
    const { statSync } = await import('node:fs');
    let isDir = false;
    try { isDir = statSync(cli.cwd).isDirectory(); } catch { isDir = false; }
    if (!isDir) throw new UsageError(`--cwd: not a directory: ${cli.cwd}`);
  }
  if (cli.command === 'setup') {
    const { runSetupCommand } = await import('./config/setup.ts');
    return runSetupCommand(cli, process.env);
  }
  const interactive = cli.message.length === 0 && !cli.readStdin && process.stdin.isTTY === true;
  if (!interactive) {
    const { runOneshot } = await import('./frontends/oneshot.ts');
    return runOneshot(cli, process.env);
  }
  const { runRepl } = await import('./frontends/repl/repl.ts');
  return runRepl(cli, process.env);
}

main(process.argv.slice(2)).then(
  // Exit explicitly: an idle keep-alive socket or an abandoned stdin pipe must not hold the process.
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof AgentxError) {
      const hint = err instanceof UsageError ? ' (see agentx --help)' : '';
      process.stderr.write(`agentx: ${err.message}${hint}\n`);
      process.exit(err.exitCode);
    }
    // An unexpected bug: one line for the user, the stack only with AGENTX_DEBUG_STACK.
    const e = err as Error;
    process.stderr.write(`agentx: internal error: ${e?.message ?? String(err)}\n`);
    if (process.env.AGENTX_DEBUG_STACK) process.stderr.write(`${e?.stack ?? ''}\n`);
    process.exit(1);
  },
);
