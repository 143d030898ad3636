// The seccomp filter bwrap loads (`--seccomp FD`) for every sandboxed command unless Unix sockets
// are allowed (AGENTX_SANDBOX_UNIX_SOCKETS=on). Pure: an architecture in, a classic-BPF program out.
//
// Why: a read-only bind does not stop connect(), and the list of hidden socket paths (policy.ts)
// can only name the sockets we know of; any tmux, screen, database or editor socket in /tmp or
// /run led out of the sandbox (issue 23). Refusing `socket(AF_UNIX, …)` closes all of them at once,
// abstract-namespace sockets included. `socketpair` stays allowed: it makes two connected ends
// inside the sandbox, which programs (shells, Python's subprocess, test runners) need.
//
// The program, in order:
// 1. The architecture comes first: syscall numbers mean different things in another ABI. Any ABI
//    but the native one (a 32-bit i386 or arm binary, whose socketcall hides the domain behind a
//    pointer the filter cannot read) gets EPERM for every call, so it cannot get around the check.
// 2. On x86-64, x32 calls (nr with bit 30 set) reach the same kernel code under other numbers:
//    refused the same way.
// 3. socket() with domain AF_UNIX (the low 32 bits of args[0]: the kernel reads an int) → EPERM.
// 4. io_uring_setup → EPERM: io_uring can create sockets (IORING_OP_SOCKET) without any system
//    call the filter sees. Programs that use io_uring fall back to plain calls when it fails.
// 5. Everything else is allowed.

/** Offsets in struct seccomp_data. */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** args[0], low half on these little-endian architectures. */
const ARG0_LOW_OFFSET = 16;

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_RET_K = 0x06;

export const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;
export const SECCOMP_RET_ERRNO_EPERM = 0x00050000 | EPERM;
const AF_UNIX = 1;
const X32_SYSCALL_BIT = 0x40000000;

interface ArchTable {
  audit: number;
  socket: number;
  ioUringSetup: number;
  /** x86-64 only: refuse x32 system calls. */
  x32: boolean;
}

export const AUDIT_ARCH_X86_64 = 0xc000003e;
export const AUDIT_ARCH_AARCH64 = 0xc00000b7;

const ARCHES: Partial<Record<NodeJS.Architecture, ArchTable>> = {
  x64: { audit: AUDIT_ARCH_X86_64, socket: 41, ioUringSetup: 425, x32: true },
  arm64: { audit: AUDIT_ARCH_AARCH64, socket: 198, ioUringSetup: 425, x32: false },
};

/** One classic-BPF instruction (struct sock_filter). */
export interface BpfInstruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

type Target = 'next' | 'allow' | 'deny';
type Step = { op: 'load'; offset: number } | { op: 'jeq' | 'jge'; k: number; yes: Target; no: Target } | { op: 'ret'; label: 'allow' | 'deny' };

function steps(arch: ArchTable): Step[] {
  return [
    { op: 'load', offset: ARCH_OFFSET },
    { op: 'jeq', k: arch.audit, yes: 'next', no: 'deny' },
    { op: 'load', offset: NR_OFFSET },
    ...(arch.x32 ? [{ op: 'jge', k: X32_SYSCALL_BIT, yes: 'deny', no: 'next' } as const] : []),
    { op: 'jeq', k: arch.ioUringSetup, yes: 'deny', no: 'next' },
    { op: 'jeq', k: arch.socket, yes: 'next', no: 'allow' },
    { op: 'load', offset: ARG0_LOW_OFFSET },
    { op: 'jeq', k: AF_UNIX, yes: 'deny', no: 'allow' },
    { op: 'ret', label: 'allow' },
    { op: 'ret', label: 'deny' },
  ];
}

/** Resolves the labels into relative jumps (a jump counts the instructions it skips). */
function assemble(program: Step[]): BpfInstruction[] {
  const at = (label: 'allow' | 'deny'): number => program.findIndex((s) => s.op === 'ret' && s.label === label);
  return program.map((s, i) => {
    if (s.op === 'load') return { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: s.offset };
    if (s.op === 'ret') return { code: BPF_RET_K, jt: 0, jf: 0, k: s.label === 'allow' ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO_EPERM };
    const jump = (t: Target): number => (t === 'next' ? 0 : at(t) - i - 1);
    return { code: s.op === 'jeq' ? BPF_JMP_JEQ_K : BPF_JMP_JGE_K, jt: jump(s.yes), jf: jump(s.no), k: s.k };
  });
}

/** The filter's instructions for this architecture, or undefined when agentx has none for it. */
export function unixSocketFilterProgram(arch: NodeJS.Architecture): BpfInstruction[] | undefined {
  const table = ARCHES[arch];
  return table ? assemble(steps(table)) : undefined;
}

/** What bwrap reads from the fd: each instruction as u16 code, u8 jt, u8 jf, u32 k, little-endian. */
export function encodeBpf(program: readonly BpfInstruction[]): Buffer {
  const out = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(ins.jt, i * 8 + 2);
    out.writeUInt8(ins.jf, i * 8 + 3);
    out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return out;
}

/** The encoded filter for this architecture, or undefined (the runner then refuses, see sandboxed.ts). */
export function unixSocketFilter(arch: NodeJS.Architecture): Buffer | undefined {
  const program = unixSocketFilterProgram(arch);
  return program ? encodeBpf(program) : undefined;
}

/** The one line said when the filter is needed but agentx has none for this machine. */
export function noFilterMessage(arch: string): string {
  return `the sandbox has no Unix-socket filter for ${arch} (only x64 and arm64); set AGENTX_SANDBOX_UNIX_SOCKETS=on to run sandboxed without it, or --sandbox danger-full-access`;
}
