// A REPL session on the WebSocket transport, in a real pty: every turn and tool round goes over
// one connection for the whole session; Ctrl-C mid-answer drops that connection (the rest of an
// abandoned answer must not mix with the next), and the next turn reconnects.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.ts';
import { prompt, replSuite, turn } from './repl-fixtures.ts';

const suite = replSuite();

describe('a REPL session over WebSocket', () => {
  it('turns with commands share one connection; an interrupted answer costs a new one', async () => {
    const sb = sandbox(suite.emu.baseUrl, { AGENTX_TRANSPORT: 'websocket' });
    const first = suite.emu.requests.length;
    const connections = suite.emu.webSocketConnections();
    const a = suite.start(sb);
    await prompt(a);
    await turn(a, 'hello there', 'You said: hello there');
    await turn(a, 'run: echo 1 >> ledger.txt', /Ran it\. Output:/);
    await turn(a, 'remember PET=otter', 'You said: remember PET=otter');
    expect(suite.emu.webSocketConnections() - connections).toBe(1);

    suite.emu.enqueue({ kind: 'hang' });
    const before = suite.emu.requests.length;
    a.line('wait forever');
    await suite.emu.waitForRequests(before + 1);
    a.write('\x03');
    // The prompt after the interrupt, not a redraw of the one before it (a line typed before the
    // turn has ended is not a message: CI lost 'recall: PET' that way once).
    await a.waitFor('⏹ interrupted');
    await prompt(a);
    await turn(a, 'recall: PET', 'Recalled: PET=otter');
    expect(suite.emu.webSocketConnections() - connections).toBe(2);

    const mine = suite.emu.requests.slice(first);
    expect(mine.every((q) => q.transport === 'websocket')).toBe(true);
    expect(readFileSync(join(sb.cwd, 'ledger.txt'), 'utf8')).toBe('1\n');
    a.write('\x04');
    await a.exited;
  });
});
