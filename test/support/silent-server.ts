// A TCP server that accepts and never answers: a proxy that goes silent after the connection,
// or a server behind a tunnel that never answers the TLS ClientHello. It reads what it gets,
// so it sees the client's end of each socket (`closed`): a test can prove nothing was left open.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SilentServer {
  port: number;
  /** Resolves on the first connection. */
  accepted: Promise<void>;
  /** One promise per connection, resolved when the client's side is closed. */
  closed: Promise<void>[];
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const closed: Promise<void>[] = [];
  const sockets = new Set<net.Socket>();
  let onAccept = (): void => undefined;
  const accepted = new Promise<void>((r) => (onAccept = r));
  const server = net.createServer((socket) => {
    onAccept();
    sockets.add(socket);
    closed.push(new Promise((r) => socket.on('close', () => r())));
    socket.on('error', () => undefined).resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    accepted,
    closed,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
