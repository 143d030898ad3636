import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AUDIT_ARCH_AARCH64,
  AUDIT_ARCH_X86_64,
  encodeBpf,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO_EPERM,
  unixSocketFilter,
  unixSocketFilterProgram,
  type BpfInstruction,
} from './seccomp.ts';
import { bwrapPath, makeLayout } from '../../test/support/sandbox.ts';

/** Decodes what bwrap would read, independently of the encoder. */
function decode(buf: Buffer): BpfInstruction[] {
  const out: BpfInstruction[] = [];
  for (let i = 0; i < buf.length; i += 8) {
    out.push({ code: buf.readUInt16LE(i), jt: buf.readUInt8(i + 2), jf: buf.readUInt8(i + 3), k: buf.readUInt32LE(i + 4) });
  }
  return out;
}

/** A classic-BPF interpreter for the few opcodes a seccomp filter of ours may use. */
function evaluate(program: BpfInstruction[], data: { arch: number; nr: number; arg0: number }): number {
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const ins = program[pc]!;
    if (ins.code === 0x20) acc = ins.k === 0 ? data.nr : ins.k === 4 ? data.arch : ins.k === 16 ? data.arg0 : NaN;
    else if (ins.code === 0x15) pc += acc === ins.k ? ins.jt : ins.jf;
    else if (ins.code === 0x35) pc += acc >= ins.k ? ins.jt : ins.jf;
    else if (ins.code === 0x06) return ins.k;
    else throw new Error(`unexpected opcode ${ins.code.toString(16)}`);
  }
  throw new Error('fell off the end of the program');
}

describe('unixSocketFilter (pure)', () => {
  const x64 = decode(unixSocketFilter('x64')!);
  const arm64 = decode(unixSocketFilter('arm64')!);

  it('is 8 bytes per instruction and decodes to the program it was built from', () => {
    expect(unixSocketFilter('x64')!.length).toBe(8 * x64.length);
    expect(x64).toEqual(unixSocketFilterProgram('x64'));
    expect(encodeBpf(arm64)).toEqual(unixSocketFilter('arm64'));
    expect(x64).toHaveLength(10);
    expect(arm64).toHaveLength(9);
  });

  it('checks the architecture first', () => {
    for (const [prog, arch] of [
      [x64, AUDIT_ARCH_X86_64],
      [arm64, AUDIT_ARCH_AARCH64],
    ] as const) {
      expect(prog[0]).toEqual({ code: 0x20, jt: 0, jf: 0, k: 4 });
      expect(prog[1]).toMatchObject({ code: 0x15, jt: 0, k: arch });
    }
  });

  it('every jump lands inside the program and it ends in returns only', () => {
    for (const prog of [x64, arm64]) {
      prog.forEach((ins, i) => {
        if (ins.code === 0x15 || ins.code === 0x35) expect(i + 1 + Math.max(ins.jt, ins.jf)).toBeLessThan(prog.length);
      });
      expect(prog.filter((i) => i.code === 0x06).map((i) => i.k)).toEqual([SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO_EPERM]);
    }
  });

  it('refuses socket(AF_UNIX), io_uring_setup, x32 and foreign-ABI calls; allows the rest', () => {
    const x = (nr: number, arg0 = 0, arch = AUDIT_ARCH_X86_64): number => evaluate(x64, { arch, nr, arg0 });
    expect(x(41, 1)).toBe(SECCOMP_RET_ERRNO_EPERM); // socket(AF_UNIX)
    expect(x(41, 2)).toBe(SECCOMP_RET_ALLOW); // socket(AF_INET)
    expect(x(41, 10)).toBe(SECCOMP_RET_ALLOW); // socket(AF_INET6)
    expect(x(53, 1)).toBe(SECCOMP_RET_ALLOW); // socketpair(AF_UNIX)
    expect(x(42, 1)).toBe(SECCOMP_RET_ALLOW); // connect: the socket is what is refused
    expect(x(425)).toBe(SECCOMP_RET_ERRNO_EPERM); // io_uring_setup
    expect(x(0x40000000 + 41, 1)).toBe(SECCOMP_RET_ERRNO_EPERM); // x32 socket
    expect(x(0x40000000)).toBe(SECCOMP_RET_ERRNO_EPERM);
    expect(x(359, 1, 0x40000003)).toBe(SECCOMP_RET_ERRNO_EPERM); // i386 socket
    expect(x(0)).toBe(SECCOMP_RET_ALLOW);
    const a = (nr: number, arg0 = 0, arch = AUDIT_ARCH_AARCH64): number => evaluate(arm64, { arch, nr, arg0 });
    expect(a(198, 1)).toBe(SECCOMP_RET_ERRNO_EPERM);
    expect(a(198, 2)).toBe(SECCOMP_RET_ALLOW);
    expect(a(199, 1)).toBe(SECCOMP_RET_ALLOW); // socketpair
    expect(a(41, 1)).toBe(SECCOMP_RET_ALLOW); // 41 is pivot_root on arm64, not socket
    expect(a(425)).toBe(SECCOMP_RET_ERRNO_EPERM);
    expect(a(198, 1, 0x40000028)).toBe(SECCOMP_RET_ERRNO_EPERM); // arm32 compat
  });

  it('has no filter for other architectures (the runner refuses instead)', () => {
    expect(unixSocketFilter('riscv64')).toBeUndefined();
    expect(unixSocketFilter('ia32')).toBeUndefined();
  });
});

describe.runIf(process.arch === 'x64' || process.arch === 'arm64')('unixSocketFilter in real bwrap', () => {
  const box = makeLayout();
  afterAll(() => box.remove());

  it('refuses AF_UNIX sockets; socketpair, TCP and the rest still work', () => {
    const file = join(box.root, 'filter.bpf');
    writeFileSync(file, unixSocketFilter(process.arch)!);
    const fd = openSync(file, 'r');
    const script = [
      'import socket',
      'try:',
      '    socket.socket(socket.AF_UNIX)',
      '    print("unix: created")',
      'except OSError as e:',
      '    print("unix:", e.errno)',
      'a, b = socket.socketpair(); a.send(b"x"); print("pair:", b.recv(1))',
      'socket.socket(socket.AF_INET); print("tcp: created")',
    ].join('\n');
    try {
      const r = spawnSync(bwrapPath(), ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--seccomp', '9', '--', 'python3', '-c', script], {
        stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ignore', 'ignore', 'ignore', 'ignore', 'ignore', fd],
        encoding: 'utf8',
      });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe("unix: 1\npair: b'x'\ntcp: created\n");
    } finally {
      closeSync(fd);
    }
  });
});
