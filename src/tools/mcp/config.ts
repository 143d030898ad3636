// Which MCP servers a session may start: the user's file ($XDG_CONFIG_HOME/agentx/mcp.json) and
// the project's `.mcp.json`, the latter only once its exact content was approved (approval.ts).
// Cheap when nothing is configured: two failed opens, no hashing, no SDK. Callers import the
// manager (and with it the MCP SDK) only when `servers()` is not empty.
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { errorCode } from '../../lib/fsutil.ts';
import { approvalsPath, isApproved, recordApproval, userMcpConfigPath } from './approval.ts';
import { redactionSecrets } from './manager-secrets.ts';
import { reviewDetails, withoutKeyReferences } from './review.ts';
import { describeSpec, parseMcpFile } from './spec.ts';
import type { McpServerSpec, ParsedMcpFile, RemoteServerSpec } from './spec.ts';

export const PROJECT_MCP_FILE = '.mcp.json';

export interface McpConfigOptions {
  /** The session's directory: where `.mcp.json` is looked for. */
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** The key in use: a project entry reading a variable that holds it is refused (review.ts). */
  secrets?: readonly string[];
  now?: () => Date;
}

export interface PendingApproval {
  /** Absolute (real) path of the project file. */
  file: string;
  sha256: string;
  /** What approving would start (or, for remote servers, let the API call): name, transport and command line or URL. */
  servers: { name: string; transport: McpServerSpec['transport'] | 'remote'; description: string; details: string[] }[];
}

interface ProjectFile {
  file: string;
  sha256: string;
  parsed: ParsedMcpFile;
  approved: boolean;
}

type ReadResult = { text: string } | { problem: string } | undefined;

/** undefined when the file does not exist; a problem line when it exists but cannot be read. */
function readConfigFile(path: string): ReadResult {
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { problem: `mcp: ${path}: cannot read (${code ?? String(err)})` };
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export class McpConfig {
  readonly problems: string[];
  readonly skipped: string[];

  constructor(
    private readonly user: ParsedMcpFile | undefined,
    private readonly project: ProjectFile | undefined,
    private readonly storePath: string,
    private readonly now: () => Date,
  ) {
    this.problems = [...(user?.problems ?? []), ...(project?.parsed.problems ?? [])];
    this.skipped = [...(user?.skipped ?? []), ...(project?.parsed.skipped ?? [])];
  }

  /**
   * The servers to start: the user's, plus the project's once approved. A project server with
   * the same name as a user server replaces it (the project knows what it needs).
   */
  servers(): McpServerSpec[] {
    const byName = new Map<string, McpServerSpec>();
    for (const s of this.user?.servers ?? []) byName.set(s.name, s);
    if (this.project?.approved) for (const s of this.project.parsed.servers) byName.set(s.name, s);
    return [...byName.values()];
  }

  /**
   * Remote servers the API calls (`"type": "remote"`): the user's, plus the project's once
   * approved (a project could otherwise send environment secrets, through `${VAR}` headers, to a
   * server of its choosing). A project entry replaces a user entry of the same name.
   */
  remoteServers(): RemoteServerSpec[] {
    const byName = new Map<string, RemoteServerSpec>();
    for (const s of this.user?.remote ?? []) byName.set(s.name, s);
    if (this.project?.approved) for (const s of this.project.parsed.remote) byName.set(s.name, s);
    return [...byName.values()];
  }

  /** The project file waiting for the person's approval, or undefined (none, approved, or no servers). */
  pendingApproval(): PendingApproval | undefined {
    const p = this.project;
    const all = [...(p?.parsed.servers ?? []), ...(p?.parsed.remote ?? [])];
    if (!p || p.approved || all.length === 0) return undefined;
    return {
      file: p.file,
      sha256: p.sha256,
      servers: all.map((s) => ({ name: s.name, transport: s.transport, description: describeSpec(s), details: reviewDetails(s) })),
    };
  }

  /**
   * Remembers the approval of the content that was read (and shown by pendingApproval), so an
   * edit made since is not approved by accident. Throws if the store cannot be written.
   */
  approve(): void {
    const p = this.project;
    if (!p || p.approved) return;
    recordApproval(this.storePath, p.file, p.sha256, this.now());
    p.approved = true;
  }

  /** One line for modes that cannot ask (one-shots): what is not started and how to allow it. */
  unapprovedNotice(): string | undefined {
    const pending = this.pendingApproval();
    if (!pending) return undefined;
    const names = pending.servers.map((s) => s.name).join(', ');
    return `mcp: ${pending.file} is not approved; its servers (${names}) are not started (start agentx interactively to review it)`;
  }
}

async function sha256Hex(text: string): Promise<string> {
  // node:crypto costs ~10 ms to load, so it is imported only when a project file exists.
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export async function loadMcpConfig(opts: McpConfigOptions): Promise<McpConfig> {
  const userPath = userMcpConfigPath(opts.env);
  const storePath = approvalsPath(opts.env);
  const problems: string[] = [];
  const userRead = readConfigFile(userPath);
  let user: ParsedMcpFile | undefined;
  if (userRead && 'problem' in userRead) problems.push(userRead.problem);
  else if (userRead) user = parseMcpFile(userRead.text, userPath, 'user');

  const projectPath = join(opts.projectDir, PROJECT_MCP_FILE);
  const projectRead = readConfigFile(projectPath);
  let project: ProjectFile | undefined;
  if (projectRead && 'problem' in projectRead) problems.push(projectRead.problem);
  else if (projectRead) {
    // Approvals are keyed by the real path, so a symlinked checkout does not ask twice.
    const file = realPath(projectPath);
    const sha256 = await sha256Hex(projectRead.text);
    // Entries that would hand agentx's key to a server are refused whatever the approval says.
    const parsed = withoutKeyReferences(parseMcpFile(projectRead.text, file, 'project'), opts.env, redactionSecrets(opts.env, opts.secrets ?? []));
    project = { file, sha256, parsed, approved: isApproved(storePath, file, sha256) };
  }
  const config = new McpConfig(user, project, storePath, opts.now ?? (() => new Date()));
  config.problems.unshift(...problems);
  return config;
}
