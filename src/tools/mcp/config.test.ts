// Config files, ${VAR} expansion and the approval of project files, on real files in temp dirs.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalsPath, userMcpConfigPath } from './approval.ts';
import { loadMcpConfig } from './config.ts';
import { expandString } from './expand.ts';
import { resolveSpec } from './resolve.ts';
import { sanitizeLine } from '../../ui/sanitize.ts';
import { parseMcpFile } from './spec.ts';
import type { StdioServerSpec } from './spec.ts';

let root: string;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agentx-mcp-config-'));
  home = join(root, 'home');
  project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
  env = { HOME: home };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeUser(content: unknown): string {
  const path = userMcpConfigPath(env);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function writeProject(content: unknown): string {
  const path = join(project, '.mcp.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('expandString', () => {
  it('expands ${VAR} and ${VAR:-default}; leaves $VAR and $(…) alone', () => {
    const e = { A: 'x', EMPTY: '' };
    expect(expandString('${A}-${A}', e)).toEqual({ ok: true, value: 'x-x' });
    expect(expandString('${B:-dflt} ${EMPTY:-used}', e)).toEqual({ ok: true, value: 'dflt used' });
    expect(expandString('${EMPTY}', e)).toEqual({ ok: true, value: '' });
    expect(expandString('$A $(A) ${', e)).toEqual({ ok: true, value: '$A $(A) ${' });
    expect(expandString('a ${MISSING} ${ALSO}', e)).toEqual({ ok: false, missing: 'MISSING' });
  });
});

describe('parseMcpFile', () => {
  const parse = (v: unknown) => parseMcpFile(JSON.stringify(v), '/p/.mcp.json', 'project');

  it('reads stdio and HTTP servers in the common shape', () => {
    const r = parse({
      mcpServers: {
        fs: { command: 'npx', args: ['-y', 'server-fs'], env: { T: '${T}' }, cwd: 'sub', startupTimeoutMs: 5000, toolTotalTimeoutMs: 3_600_000 },
        web: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        old: { type: 'sse', url: 'http://localhost:1/sse' },
      },
    });
    expect(r.problems).toEqual([]);
    expect(r.servers).toEqual([
      {
        name: 'fs',
        file: '/p/.mcp.json',
        scope: 'project',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'server-fs'],
        env: { T: '${T}' },
        cwd: 'sub',
        startupTimeoutMs: 5000,
        toolTotalTimeoutMs: 3_600_000,
      },
      { name: 'web', file: '/p/.mcp.json', scope: 'project', transport: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      { name: 'old', file: '/p/.mcp.json', scope: 'project', transport: 'sse', url: 'http://localhost:1/sse', headers: {} },
    ]);
  });

  it('reports each bad entry in one line naming file and server, and keeps the good ones', () => {
    const r = parse({
      mcpServers: {
        good: { command: 'ok' },
        both: { command: 'x', url: 'http://x' },
        none: {},
        args: { command: 'x', args: 'not-a-list' },
        env: { command: 'x', env: { A: 1 } },
        url: { url: 'ftp://x' },
        type: { type: 'websocket', url: 'http://x' },
        mixed: { url: 'http://x', cwd: '/' },
        timeout: { command: 'x', startupTimeoutMs: -1 },
        total: { command: 'x', toolTotalTimeoutMs: 'long' },
        notobj: 'x',
        '': { command: 'x' },
      },
    });
    expect(r.servers.map((s) => s.name)).toEqual(['good']);
    expect(r.problems).toEqual([
      'mcp: /p/.mcp.json: server "both": has both "command" and "url"; give one',
      'mcp: /p/.mcp.json: server "none": needs "command" (a local server) or "url" (a remote one)',
      'mcp: /p/.mcp.json: server "args": "args" must be an array of strings',
      'mcp: /p/.mcp.json: server "env": "env.A" must be a string',
      'mcp: /p/.mcp.json: server "url": "url" must be http(s), got ftp:',
      'mcp: /p/.mcp.json: server "type": unknown "type" "websocket" (expected stdio, http, sse or remote)',
      'mcp: /p/.mcp.json: server "mixed": "cwd" only applies to a server with a "command"',
      'mcp: /p/.mcp.json: server "timeout": "startupTimeoutMs" must be a positive number of milliseconds',
      'mcp: /p/.mcp.json: server "total": "toolTotalTimeoutMs" must be a positive number of milliseconds',
      'mcp: /p/.mcp.json: server "notobj": must be an object',
      'mcp: /p/.mcp.json: server "": server names must not be empty',
    ]);
  });

  it('reads hosted remote MCP entries apart from the servers it starts, and skips disabled ones', () => {
    const r = parse({
      mcpServers: { hosted: { type: 'remote', server_url: 'https://x.example/mcp' }, off: { command: 'x', disabled: true }, on: { command: 'y' } },
    });
    expect(r.problems).toEqual([]);
    expect(r.servers.map((s) => s.name)).toEqual(['on']);
    expect(r.remote).toEqual([
      { name: 'hosted', file: '/p/.mcp.json', scope: 'project', transport: 'remote', url: 'https://x.example/mcp', headers: {}, requireApproval: 'always' },
    ]);
    expect(r.skipped).toEqual(['mcp: /p/.mcp.json: server "off": skipped: disabled']);
  });

  it('validates remote entries: url, headers, require_approval, allowed_tools', () => {
    const r = parse({
      mcpServers: {
        ok: {
          type: 'remote',
          url: 'https://d.example/mcp',
          headers: { Authorization: 'Bearer ${TOKEN}' },
          require_approval: { never: { tool_names: ['search'] } },
          allowed_tools: ['search'],
        },
        nourl: { type: 'remote' },
        local: { type: 'remote', url: 'https://x', command: 'x' },
        policy: { type: 'remote', url: 'https://x', require_approval: 'sometimes' },
      },
    });
    expect(r.remote.map((s) => s.name)).toEqual(['ok']);
    expect(r.remote[0]).toMatchObject({
      headers: { Authorization: 'Bearer ${TOKEN}' },
      requireApproval: { never: { tool_names: ['search'] } },
      allowedTools: ['search'],
    });
    expect(r.problems).toEqual([
      'mcp: /p/.mcp.json: server "nourl": a remote server needs "url" (a non-empty string)',
      'mcp: /p/.mcp.json: server "local": "command" does not apply to a remote server (the API connects to its "url")',
      'mcp: /p/.mcp.json: server "policy": "require_approval" must be "always", "never" or {"never": {"tool_names": [...]}}',
    ]);
  });

  it('refuses a URL with a user name or password in one line that does not repeat them, and says to use headers or sign-in', () => {
    const r = parse({
      mcpServers: {
        http: { url: 'https://user:hunter2@h.example/mcp?api_key=SECRET' },
        ref: { url: 'https://${CREDS}@h.example/mcp' },
        remote: { type: 'remote', url: 'https://tok3n@h.example/mcp' },
        ok: { url: 'https://h.example/mcp?api_key=SECRET' },
      },
    });
    expect(r.servers.map((s) => s.name)).toEqual(['ok']);
    expect(r.remote).toEqual([]);
    const hint = '"url" must not hold a user name or password (user:password@); send the credential in "headers" ("Authorization": "Bearer ${TOKEN}")';
    expect(r.problems).toEqual([
      `mcp: /p/.mcp.json: server "http": ${hint}, or sign in with OAuth (agentx mcp login NAME)`,
      `mcp: /p/.mcp.json: server "ref": ${hint}, or sign in with OAuth (agentx mcp login NAME)`,
      `mcp: /p/.mcp.json: server "remote": ${hint}`,
    ]);
    expect(r.problems.join('\n')).not.toMatch(/hunter2|SECRET|tok3n/);
  });

  it('refuses a timeout above what setTimeout keeps (2^31-1 ms), which Node would fire at once', () => {
    const r = parse({
      mcpServers: {
        max: { command: 'x', startupTimeoutMs: 2 ** 31 - 1, toolTimeoutMs: 1, toolTotalTimeoutMs: 2 ** 31 - 1 },
        over: { command: 'x', toolTimeoutMs: 2 ** 31 },
        total: { url: 'https://h/mcp', toolTotalTimeoutMs: 1e12 },
      },
    });
    expect(r.servers).toEqual([expect.objectContaining({ name: 'max', startupTimeoutMs: 2 ** 31 - 1, toolTimeoutMs: 1, toolTotalTimeoutMs: 2 ** 31 - 1 })]);
    expect(r.problems).toEqual([
      'mcp: /p/.mcp.json: server "over": "toolTimeoutMs" must be at most 2147483647 (about 24.8 days; Node would fire a longer timer at once)',
      'mcp: /p/.mcp.json: server "total": "toolTotalTimeoutMs" must be at most 2147483647 (about 24.8 days; Node would fire a longer timer at once)',
    ]);
  });

  it('reports invalid JSON and a missing mcpServers in one line', () => {
    expect(parseMcpFile('{oops', '/p/.mcp.json', 'project').problems).toEqual([
      "mcp: /p/.mcp.json is not valid JSON at line 1, column 2: unexpected 'o' (near '{oops')",
    ]);
    expect(parseMcpFile('{"servers":{}}', '/p/.mcp.json', 'project').problems).toEqual(['mcp: /p/.mcp.json: expected {"mcpServers": {…}}']);
  });

  it('a file that is not JSON and holds terminal bytes is one clean line the terminal sanitizer leaves whole', () => {
    const [line] = parseMcpFile('{"mcpServers": {\n  "a": \x1b[31m\x07{"command": "x"}\n}}', '/p/.mcp.json', 'project').problems;
    expect(line).toBe('mcp: /p/.mcp.json is not valid JSON at line 2, column 8: unexpected \'\\x1b\' (near \'"a": \\x1b[31m\\x07{"command"…\')');
    expect(sanitizeLine(line ?? '')).toBe(line);
  });
});

describe('resolveSpec', () => {
  const spec = (extra: Partial<StdioServerSpec>): StdioServerSpec => ({
    name: 's',
    file: '/cfg/dir/.mcp.json',
    scope: 'project',
    transport: 'stdio',
    command: 'run',
    args: [],
    env: {},
    ...extra,
  });

  it('expands references and resolves a relative cwd against the config file folder', () => {
    const r = resolveSpec(spec({ command: '${BIN}/srv', args: ['--key=${K}'], env: { X: '${K}' }, cwd: 'sub' }), { BIN: '/opt', K: 'v' }, '/session');
    expect(r).toEqual({ ok: true, server: { transport: 'stdio', command: '/opt/srv', args: ['--key=v'], env: { X: 'v' }, cwd: '/cfg/dir/sub' } });
    expect(resolveSpec(spec({}), {}, '/session')).toMatchObject({ ok: true, server: { cwd: '/session' } });
  });

  it('names the missing variable and the file; never shows an expanded URL', () => {
    expect(resolveSpec(spec({ env: { X: '${NOPE}' } }), {}, '/')).toEqual({ ok: false, reason: '${NOPE} is not set (in /cfg/dir/.mcp.json)' });
    const http = { name: 'h', file: '/f', scope: 'user', transport: 'http', url: '${U}', headers: {} } as const;
    expect(resolveSpec(http, { U: 'not a url secret' }, '/')).toEqual({ ok: false, reason: '"url" is not a valid URL: ${U} (in /f)' });
    // A reference that expands to credentials is refused as written ones are; a bad URL is quoted without its query values.
    const expanded = resolveSpec(http, { U: 'https://me:hunter2@h/mcp' }, '/');
    expect(expanded.ok ? '' : expanded.reason).toMatch(/^"url" must not hold a user name or password .*\(in \/f\)$/);
    expect(resolveSpec({ ...http, url: 'nope?api_key=SECRET' }, {}, '/')).toEqual({ ok: false, reason: '"url" is not a valid URL: nope?api_key=*** (in /f)' });
  });
});

describe('loadMcpConfig and approval', () => {
  it('costs nothing when there is no file: no servers, no problems', async () => {
    const config = await loadMcpConfig({ projectDir: project, env });
    expect(config.servers()).toEqual([]);
    expect(config.problems).toEqual([]);
    expect(config.pendingApproval()).toBeUndefined();
  });

  it('uses the user file at once, honours XDG_CONFIG_HOME (absolute only)', async () => {
    env.XDG_CONFIG_HOME = join(root, 'xdg');
    writeUser({ mcpServers: { u: { command: 'user-srv' } } });
    expect(userMcpConfigPath(env)).toBe(join(root, 'xdg', 'agentx', 'mcp.json'));
    expect((await loadMcpConfig({ projectDir: project, env })).servers().map((s) => s.name)).toEqual(['u']);
    expect(userMcpConfigPath({ HOME: home, XDG_CONFIG_HOME: 'relative' })).toBe(join(home, '.config', 'agentx', 'mcp.json'));
  });

  it('does not use a project file until approved; the approval is remembered per content, outside the project', async () => {
    writeUser({ mcpServers: { shared: { command: 'from-user' }, u: { command: 'u' } } });
    const file = writeProject({ mcpServers: { shared: { command: 'from-project', args: ['a b'] }, p: { url: 'http://localhost:9/mcp' } } });
    const first = await loadMcpConfig({ projectDir: project, env, now: () => new Date('2030-01-02T03:04:05Z') });
    expect(first.servers().map((s) => [s.name, s.scope])).toEqual([
      ['shared', 'user'],
      ['u', 'user'],
    ]);
    const pending = first.pendingApproval();
    expect(pending).toMatchObject({
      file,
      servers: [
        { name: 'shared', transport: 'stdio', description: 'from-project "a b"' },
        { name: 'p', transport: 'http', description: 'http://localhost:9/mcp' },
      ],
    });
    expect(pending?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(first.unapprovedNotice()).toBe(`mcp: ${file} is not approved; its servers (shared, p) are not started (start agentx interactively to review it)`);

    first.approve();
    expect(first.pendingApproval()).toBeUndefined();
    expect(first.servers().map((s) => [s.name, s.scope])).toEqual([
      ['shared', 'project'],
      ['u', 'user'],
      ['p', 'project'],
    ]);
    const store = approvalsPath(env);
    expect(store.startsWith(join(home, '.local', 'state', 'agentx'))).toBe(true);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(store, 'utf8'))).toEqual({
      version: 1,
      files: { [file]: { sha256: pending?.sha256, approvedAt: '2030-01-02T03:04:05.000Z' } },
    });

    const again = await loadMcpConfig({ projectDir: project, env });
    expect(again.pendingApproval()).toBeUndefined();
    expect(again.unapprovedNotice()).toBeUndefined();

    writeProject({ mcpServers: { shared: { command: 'something-else' } } });
    const edited = await loadMcpConfig({ projectDir: project, env });
    expect(edited.pendingApproval()?.servers).toEqual([
      {
        name: 'shared',
        transport: 'stdio',
        description: 'something-else',
        details: ['command: something-else', 'cwd: (the session directory)', 'env: (none set)', 'reads from your environment: (nothing)'],
      },
    ]);
    expect(edited.servers().find((s) => s.name === 'shared')?.scope).toBe('user');
  });

  it('keys approvals by real path, so a symlinked checkout needs no second approval', async () => {
    writeProject({ mcpServers: { p: { command: 'x' } } });
    (await loadMcpConfig({ projectDir: project, env })).approve();
    const link = join(root, 'link');
    symlinkSync(project, link);
    expect((await loadMcpConfig({ projectDir: link, env })).pendingApproval()).toBeUndefined();
  });

  it('treats a broken approvals store as no approvals, and a broken config file as one problem', async () => {
    writeProject({ mcpServers: { p: { command: 'x' } } });
    mkdirSync(join(approvalsPath(env), '..'), { recursive: true });
    writeFileSync(approvalsPath(env), 'not json');
    const config = await loadMcpConfig({ projectDir: project, env });
    expect(config.pendingApproval()).toBeDefined();
    config.approve();
    expect((await loadMcpConfig({ projectDir: project, env })).pendingApproval()).toBeUndefined();

    writeUser('{"mcpServers": ');
    const broken = await loadMcpConfig({ projectDir: project, env });
    expect(broken.problems).toHaveLength(1);
    expect(broken.problems[0]).toMatch(/^mcp: .*mcp\.json is not valid JSON at line 1, column 16: the text ends too early/);
  });

  it('a project file without usable servers needs no approval', async () => {
    writeProject({ mcpServers: { hosted: { type: 'remote' }, off: { command: 'x', disabled: true } } });
    const config = await loadMcpConfig({ projectDir: project, env });
    expect(config.pendingApproval()).toBeUndefined();
    expect(config.problems).toHaveLength(1);
    expect(config.skipped).toHaveLength(1);
  });

  it('a project file with remote servers needs approval before they are offered', async () => {
    writeProject({ mcpServers: { docs: { type: 'remote', url: 'https://docs.example/mcp', headers: { 'X-Key': '${KEY}' } } } });
    const config = await loadMcpConfig({ projectDir: project, env });
    expect(config.remoteServers()).toEqual([]);
    expect(config.pendingApproval()?.servers).toEqual([
      {
        name: 'docs',
        transport: 'remote',
        description: 'https://docs.example/mcp (called by the API, with headers X-Key)',
        details: ['url: https://docs.example/mcp (called by the API)', 'headers: X-Key', 'reads from your environment: ${KEY}'],
      },
    ]);
    config.approve();
    expect(config.remoteServers().map((s) => s.name)).toEqual(['docs']);
  });

  it('shows a URL in the approval prompt without its query values (a ${VAR} reference stays readable)', async () => {
    writeProject({
      mcpServers: { web: { url: 'https://h.example/mcp?api_key=SECRET&k=${KEY}' }, docs: { type: 'remote', url: 'https://d.example/?t=SECRET' } },
    });
    const servers = (await loadMcpConfig({ projectDir: project, env })).pendingApproval()?.servers;
    expect(servers?.map((s) => [s.description, s.details[0]])).toEqual([
      ['https://h.example/mcp?api_key=***&k=${KEY}', 'url: https://h.example/mcp?api_key=***&k=${KEY}'],
      ['https://d.example/?t=*** (called by the API)', 'url: https://d.example/?t=*** (called by the API)'],
    ]);
  });

  it('shows everything a project entry runs or sends: command, args, cwd, env names, header names, every ${VAR}', async () => {
    writeProject({
      mcpServers: {
        db: {
          command: 'db-server',
          args: ['--token', '${DB_TOKEN}', 'two words'],
          cwd: '${WORK:-.}/db',
          env: { DB_URL: 'postgres://${DB_HOST}/x', MODE: 'ro' },
        },
        web: { url: 'https://example.com/${TENANT}/mcp\u001b[2K\r', headers: { Authorization: 'Bearer ${WEB_TOKEN}', 'X-Trace': '1' } },
      },
    });
    const servers = (await loadMcpConfig({ projectDir: project, env })).pendingApproval()?.servers;
    expect(servers?.map((s) => s.details)).toEqual([
      [
        'command: db-server --token ${DB_TOKEN} "two words"',
        'cwd: ${WORK:-.}/db',
        'env: DB_URL, MODE',
        'reads from your environment: ${DB_TOKEN}, ${WORK}, ${DB_HOST}',
      ],
      // A URL is quoted with its controls visible: escapes in it once erased another server's line.
      ['url: "https://example.com/${TENANT}/mcp\\u001b[2K\\r"', 'headers: Authorization, X-Trace', 'reads from your environment: ${TENANT}, ${WEB_TOKEN}'],
    ]);
    expect(servers?.[1]?.description).toBe('"https://example.com/${TENANT}/mcp\\u001b[2K\\r"');
    expect(JSON.stringify(servers)).not.toContain('\\u001b[2K\\u000d');
  });

  it("refuses a project entry that reads agentx's key (by name, or a variable holding it), with one line naming server and variable", async () => {
    const key = 'sk-live-0123456789abcdef';
    env = { ...env, AGENTX_API_KEY: key, COPY: `Bearer ${key}`, FINE: 'x' };
    const file = writeProject({
      mcpServers: {
        envKey: { command: 'srv', env: { TOKEN: '${AGENTX_API_KEY}' } },
        headerKey: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${OPENAI_API_KEY:-none}' } },
        argKey: { command: 'srv', args: ['--key=${agentx_api_key}'] },
        copied: { type: 'remote', url: 'https://example.com/mcp', headers: { Authorization: '${COPY}' } },
        ok: { command: 'srv', env: { T: '${FINE}' } },
      },
    });
    const config = await loadMcpConfig({ projectDir: project, env, secrets: [key] });
    expect(config.problems).toEqual([
      `mcp: ${file}: server "envKey" uses \${AGENTX_API_KEY}, which is one of agentx's API key variables: a project file may not pass it to a server; not started`,
      `mcp: ${file}: server "headerKey" uses \${OPENAI_API_KEY}, which is one of agentx's API key variables: a project file may not pass it to a server; not started`,
      `mcp: ${file}: server "argKey" uses \${agentx_api_key}, which is one of agentx's API key variables: a project file may not pass it to a server; not started`,
      `mcp: ${file}: server "copied" uses \${COPY}, which holds agentx's API key: a project file may not pass it to a server; not started`,
    ]);
    expect(config.pendingApproval()?.servers.map((s) => s.name)).toEqual(['ok']);
    config.approve();
    expect(config.servers().map((s) => s.name)).toEqual(['ok']);
    expect(config.remoteServers()).toEqual([]);
    // The person's own file may (a proxy that needs the key is their choice).
    writeUser({ mcpServers: { mine: { command: 'srv', env: { TOKEN: '${AGENTX_API_KEY}' } } } });
    expect((await loadMcpConfig({ projectDir: project, env, secrets: [key] })).servers().map((s) => s.name)).toContain('mine');
  });
});
