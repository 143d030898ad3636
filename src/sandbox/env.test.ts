import { describe, expect, it } from 'vitest';
import { commandEnvironment, NON_INTERACTIVE_ENV, redactSecrets, sandboxedEnvironment, SECRET_ENV_NAMES } from './env.ts';

const KEY = 'sk-proj-abcdef0123456789';

describe('commandEnvironment', () => {
  it('drops the terminal multiplexer and editor variables (a command could drive them)', () => {
    const out = commandEnvironment({ TMUX: '/tmp/tmux-1000/default,1,0', TMUX_PANE: '%1', STY: '12.pts-0.host', NVIM: '/run/nvim.sock', PATH: '/bin' }, [KEY]);
    expect(Object.keys(out).filter((k) => !(k in NON_INTERACTIVE_ENV))).toEqual(['PATH']);
  });

  it('sandboxed without Unix sockets: the session socket variables go too; with them, they stay', () => {
    const env = { SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus', HOME: '/h' };
    expect(sandboxedEnvironment(env, false)).toEqual({ HOME: '/h' });
    expect(sandboxedEnvironment(env, true)).toEqual(env);
  });

  it('drops every variable agentx reads a key from, whatever its value', () => {
    const env = Object.fromEntries(SECRET_ENV_NAMES.map((n) => [n, `value-of-${n}`]));
    const out = commandEnvironment({ ...env, PATH: '/bin' }, [KEY]);
    for (const name of SECRET_ENV_NAMES) expect(out[name]).toBeUndefined();
    expect(out.PATH).toBe('/bin');
  });

  it('drops any variable holding the configured key, alone or inside a longer value', () => {
    const out = commandEnvironment({ MY_TOKEN: KEY, AUTH_HEADER: `Bearer ${KEY}`, OTHER: 'fine' }, [KEY]);
    expect(out.MY_TOKEN).toBeUndefined();
    expect(out.AUTH_HEADER).toBeUndefined();
    expect(out.OTHER).toBe('fine');
  });

  it('matches a very short key only exactly, so it cannot blank unrelated variables', () => {
    const out = commandEnvironment({ A: 'x', B: 'xyz' }, ['x']);
    expect(out).toMatchObject({ B: 'xyz' });
    expect(out.A).toBeUndefined();
  });

  it("always sets the pagers to cat, git to never prompt and every editor to false, over the person's own", () => {
    const out = commandEnvironment({ PAGER: 'less', EDITOR: 'vim', GIT_EDITOR: 'code --wait', VISUAL: 'emacs' }, []);
    expect(out).toMatchObject(NON_INTERACTIVE_ENV);
    expect(out).toMatchObject({ PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'false', EDITOR: 'false', VISUAL: 'false' });
  });
});

describe('redactSecrets', () => {
  it('replaces every copy of the key, and leaves short keys and other text alone', () => {
    expect(redactSecrets(`a ${KEY} b ${KEY}`, [KEY])).toBe('a [REDACTED] b [REDACTED]');
    expect(redactSecrets('x marks', ['x'])).toBe('x marks');
  });
});
