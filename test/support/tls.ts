// TLS for proxy tests: a private CA made in the test, a certificate for localhost it signed, and a
// TLS front that terminates it and pipes each connection to a plaintext server (the emulator, an
// MCP server), so a client must trust the private CA (AGENTX_CA_FILE) to reach it.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as tls from 'node:tls';

export interface LocalhostCertificate {
  /** The CA's certificate: what a client is told to trust. */
  caFile: string;
  key: Buffer;
  cert: Buffer;
}

/** Makes, with openssl in `dir`, a CA named `caName` and a certificate for localhost and 127.0.0.1 signed by it. */
export function makeLocalhostCa(dir: string, caName: string): LocalhostCertificate {
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', `/CN=${caName}`);
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '1',
    '-extfile',
    'ext.cnf',
  );
  return { caFile: path.join(dir, 'ca.pem'), key: readFileSync(path.join(dir, 'server.key')), cert: readFileSync(path.join(dir, 'server.pem')) };
}

/** A TLS server on 127.0.0.1 with `certificate`, piping each connection to the plaintext `targetPort`. */
export async function tlsFront(certificate: LocalhostCertificate, targetPort: number): Promise<{ server: tls.Server; port: number }> {
  const server = tls.createServer({ key: certificate.key, cert: certificate.cert }, (socket) => {
    const up = net.connect(targetPort, '127.0.0.1');
    socket.pipe(up);
    up.pipe(socket);
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}
