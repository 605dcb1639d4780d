/** What the benchmark ran on: the machine and the ZooKeeper server, for docs/benchmarks.md. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fourLetterWord } from '@zk-recipes/testing';

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  loadAverage: string;
}

export function machineInfo(): MachineInfo {
  let nproc = cpus().length;
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
    const lscpu = execFileSync('lscpu', { encoding: 'utf8' });
    cpuModel = /^Model name:\s*(.+)$/m.exec(lscpu)?.[1]?.trim() ?? cpuModel;
  } catch {
    // Not Linux coreutils: keep what os.cpus() says.
  }
  const load = (execFileSyncSafe('cat', ['/proc/loadavg']) ?? '').split(' ').slice(0, 3).join(' ');
  return { nproc, cpuModel, memoryGiB: totalmem() / 1024 ** 3, node: process.version, loadAverage: load };
}

function execFileSyncSafe(cmd: string, args: string[]): string | undefined {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' });
  } catch {
    return undefined;
  }
}

/** The server's version line from `srvr`, e.g. `3.8.0-...`. */
export async function zookeeperVersion(connectString: string): Promise<string> {
  const [host, port] = connectString.split(',')[0]!.split('/')[0]!.split(':');
  const srvr = await fourLetterWord(host!, Number(port), 'srvr');
  return /^Zookeeper version:\s*(.+)$/m.exec(srvr)?.[1]?.trim() ?? 'unknown';
}

/** The server's count of packets received (`mntr`), to count requests per operation. */
export async function packetsReceived(connectString: string): Promise<number> {
  const [host, port] = connectString.split(',')[0]!.split('/')[0]!.split(':');
  const mntr = await fourLetterWord(host!, Number(port), 'mntr');
  return Number(/^zk_packets_received\s+(\d+)/m.exec(mntr)?.[1] ?? Number.NaN);
}

/** The server's count of watches outstanding (`wchs`: "Total watches:N"). */
export async function watchCount(connectString: string): Promise<number> {
  const [host, port] = connectString.split(',')[0]!.split('/')[0]!.split(':');
  const wchs = await fourLetterWord(host!, Number(port), 'wchs');
  return Number(/Total watches:\s*(\d+)/.exec(wchs)?.[1] ?? Number.NaN);
}

/** CPU milliseconds a process has used so far (utime + stime from /proc; 100 jiffies per second). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Total and idle CPU jiffies of the machine (/proc/stat): busy share = 1 - Δidle / Δtotal. */
export function machineCpu(): { total: number; idle: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), idle: fields[3]! + fields[4]! };
}
