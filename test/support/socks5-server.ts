// A small SOCKS5 server for proxy tests (RFC 1928 CONNECT, RFC 1929 username/password), over
// real sockets, recording what each client asked for: the methods offered, the usernames tried,
// and each CONNECT's address type, host and port. It can require credentials, answer them with
// a wrong version byte, and refuse every CONNECT with a given reply code.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SocksConnect {
  atyp: 'ipv4' | 'domain' | 'ipv6';
  host: string;
  port: number;
}

export interface Socks5Server {
  /** socks5h://127.0.0.1:PORT (the scheme is the test's to change). */
  url: string;
  port: number;
  methods: number[][];
  usernames: string[];
  connects: SocksConnect[];
  close(): Promise<void>;
}

export interface Socks5Options {
  /** Require RFC 1929 username/password with this pair. */
  credentials?: { username: string; password: string };
  /** Answer every CONNECT with this reply code (RFC 1928 §6, e.g. 2 "not allowed by ruleset"). */
  refuseWith?: number;
  /** The version byte of the username/password reply (RFC 1929 says 1; a broken proxy may send another). */
  authReplyVersion?: number;
}

/** Reads exact byte counts from a socket as the handshake goes. */
function byteReader(socket: net.Socket): { read(n: number): Promise<Buffer>; rest(): Buffer } {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  const pump = (): void => {
    if (waiting && buffered.length >= waiting.n) {
      const { n, resolve } = waiting;
      waiting = undefined;
      const out = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      resolve(out);
    }
  };
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    pump();
  };
  socket.on('data', onData);
  socket.on('close', () => waiting?.reject(new Error('client closed')));
  return {
    read: (n) =>
      new Promise((resolve, reject) => {
        waiting = { n, resolve, reject };
        pump();
      }),
    rest: () => {
      socket.off('data', onData);
      return buffered;
    },
  };
}

function ipv6Text(bytes: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}

export async function startSocks5Server(opts: Socks5Options = {}): Promise<Socks5Server> {
  const methods: number[][] = [];
  const usernames: string[] = [];
  const connects: SocksConnect[] = [];
  const sockets = new Set<net.Socket>();

  const serve = async (client: net.Socket): Promise<void> => {
    const reader = byteReader(client);
    const [version, count = 0] = await reader.read(2);
    if (version !== 5) return void client.destroy();
    const offered = [...(await reader.read(count))];
    methods.push(offered);
    const want = opts.credentials ? 0x02 : 0x00;
    if (!offered.includes(want)) {
      client.end(Buffer.from([5, 0xff]));
      return;
    }
    client.write(Buffer.from([5, want]));
    if (opts.credentials) {
      const [, ulen = 0] = await reader.read(2);
      const user = (await reader.read(ulen)).toString('utf8');
      const [plen = 0] = await reader.read(1);
      const pass = (await reader.read(plen)).toString('utf8');
      usernames.push(user);
      const ok = user === opts.credentials.username && pass === opts.credentials.password;
      client.write(Buffer.from([opts.authReplyVersion ?? 1, ok ? 0 : 1]));
      if (!ok) return void client.end();
    }
    const [, , , atyp] = await reader.read(4);
    let target: SocksConnect;
    if (atyp === 1) target = { atyp: 'ipv4', host: [...(await reader.read(4))].join('.'), port: 0 };
    else if (atyp === 4) target = { atyp: 'ipv6', host: ipv6Text(await reader.read(16)), port: 0 };
    else {
      const [len = 0] = await reader.read(1);
      target = { atyp: 'domain', host: (await reader.read(len)).toString('utf8'), port: 0 };
    }
    target.port = (await reader.read(2)).readUInt16BE(0);
    connects.push(target);
    const reply = (code: number): Buffer => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
    if (opts.refuseWith !== undefined) {
      client.end(reply(opts.refuseWith));
      return;
    }
    // The test servers listen on 127.0.0.1; a name or ::1 (where localhost resolves to it) is dialled there.
    const loopback = target.host === 'localhost' || target.host === '0:0:0:0:0:0:0:1';
    const up = net.connect(target.port, loopback ? '127.0.0.1' : target.host);
    sockets.add(up);
    up.once('error', () => {
      // A target that cannot be reached: reply 5, "connection refused".
      if (client.writable) client.end(reply(5));
    });
    up.once('connect', () => {
      up.on('error', () => client.destroy());
      client.on('error', () => up.destroy());
      client.write(reply(0));
      const early = reader.rest();
      if (early.length > 0) up.write(early);
      up.pipe(client);
      client.pipe(up);
    });
  };

  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    serve(client).catch(() => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `socks5h://127.0.0.1:${port}`,
    port,
    methods,
    usernames,
    connects,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
