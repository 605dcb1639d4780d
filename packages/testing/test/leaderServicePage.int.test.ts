/**
 * docs/leader-service.md's service, run as the page tells users to: two copies of its block as two
 * OS processes on one election. SIGTERM to the leader must hand leadership over at once (its
 * `close()`, not the server's expiry of its session), with a larger fencing token, and each process
 * must exit with 0 by itself after its SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { nodeScriptArgs } from '../src/nodeScriptArgs.js';
import { testConnectString } from '../src/testConnectString.js';
import { uniqueRoot } from '../src/uniqueRoot.js';
import { runnableBlocks } from './runnableBlocks.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
/** Inside the repository, so the workspace's packages resolve (ignored by git; not the docs test's, which it removes when done). */
const runDir = join(repoRoot, 'packages', 'testing', '.docs-run-leader-service');
const PAGE = 'docs/leader-service.md';
/** The election path the page's block uses, under the chroot each run gets. */
const ELECTION = '/services/invoicing/leader';
/** The session timeout the block asks for: a hand-over by expiry could not come sooner than its last ping allows. */
const SESSION_TIMEOUT_MS = 15_000;

const service = runnableBlocks(PAGE, readFileSync(join(repoRoot, PAGE), 'utf8')).find((block) => block.sigtermOn !== undefined);

afterAll(() => rmSync(runDir, { recursive: true, force: true }));

/** One copy of the service: its output as it comes, and its exit. */
class Instance {
  private readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(file: string, connectString: string) {
    const env: NodeJS.ProcessEnv = { ...process.env, ZK_CONNECT: connectString };
    delete env['NODE_OPTIONS'];
    this.child = spawn(process.execPath, nodeScriptArgs(file), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const heard = (chunk: Buffer): void => void (this.output += chunk.toString());
    this.child.stdout!.on('data', heard);
    this.child.stderr!.on('data', heard);
    this.exited = new Promise((resolve) => this.child.on('close', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Resolves with the first match of `pattern` in the output, once it appears. */
  async printed(pattern: RegExp, boundMs: number, what: string): Promise<RegExpExecArray> {
    const deadline = Date.now() + boundMs;
    for (;;) {
      const match = pattern.exec(this.output);
      if (match !== null) return match;
      if (Date.now() > deadline) throw new Error(`time bound: no ${what} within ${boundMs} ms; output:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  terminate(): void {
    this.child.kill('SIGTERM');
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

describe(`${PAGE}: the service`, () => {
  it('has a runnable block that is a service (sigterm-on)', () => {
    expect(service, `${PAGE} has no \`\`\`ts runnable sigterm-on=... block`).toBeDefined();
    expect(service!.code).toContain(`'${ELECTION}'`);
    expect(service!.code).toContain(`sessionTimeoutMs: ${SESSION_TIMEOUT_MS.toLocaleString('en-US').replace(/,/g, '_')}`);
  });

  it('two copies: SIGTERM to the leader hands over at once with a larger token; each exits with 0 by itself', async () => {
    mkdirSync(runDir, { recursive: true });
    const file = join(runDir, 'invoicing.mts');
    writeFileSync(file, service!.code);
    // A chroot of its own: the docs test runs the same block on the same server.
    const connectString = `${testConnectString()}${uniqueRoot('leader-service')}`;
    const observer = await ZkSession.connect({ connectString });
    const first = new Instance(file, connectString);
    let second: Instance | undefined;
    try {
      const firstToken = BigInt((await first.printed(/fencing token (\d+)/, 30_000, 'leadership of the first instance'))[1]!);
      second = new Instance(file, connectString);
      await second.printed(/joined the election/, 30_000, 'the second instance joining');
      // Its node is in the election: the hand-over below is to it.
      const deadline = Date.now() + 30_000;
      while ((await observer.getChildrenIfExists(ELECTION))?.children.length !== 2) {
        if (Date.now() > deadline) throw new Error('time bound: the second instance never had a node in the election');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(second.output, 'leadership: the second instance leads while the first does').not.toMatch(/ leads/);

      const terminatedAt = performance.now();
      first.terminate();
      const secondToken = BigInt((await second.printed(/fencing token (\d+)/, 30_000, 'leadership of the second instance'))[1]!);
      const handOverMs = performance.now() - terminatedAt;
      expect(await first.exited, `the first instance after SIGTERM:\n${first.output}`).toEqual({ code: 0, signal: null });
      expect(first.output, 'the first instance gave leadership up through close()').toMatch(/no longer leading: ELECTION_CLOSED\n$/);
      expect(secondToken > firstToken, `leadership: the new leader's token ${secondToken} is larger than ${firstToken}`).toBe(true);
      // By expiry it would take the session timeout since the first's last ping (at most a third before).
      expect(handOverMs, `time bound: hand-over ${Math.round(handOverMs)} ms after SIGTERM, expected well under the session timeout`).toBeLessThan(
        SESSION_TIMEOUT_MS / 2,
      );

      second.terminate();
      expect(await second.exited, `the second instance after SIGTERM:\n${second.output}`).toEqual({ code: 0, signal: null });
      expect((await observer.getChildrenIfExists(ELECTION))?.children ?? [], 'no node left in the election').toEqual([]);
    } finally {
      first.kill();
      second?.kill();
      await observer.close();
    }
  });
});
