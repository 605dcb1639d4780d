/**
 * The zk-recipes demo: `npm run demo`.
 *
 * Runs against the ZooKeeper in ZK_CONNECT, or starts a local server itself (and stops it after).
 * Shows several OS processes contending for one InterProcessMutex as a live timeline, then the
 * other recipes in action.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TestingServer } from '@zk-recipes/testing';
import { otherRecipes } from './demoRecipes.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
const colors = [31, 32, 33, 34, 35, 36];
const paint = (i: number, text: string) => (process.stdout.isTTY ? `\x1b[${colors[i % colors.length]}m${text}\x1b[0m` : text);

async function main(): Promise<void> {
  let server: TestingServer | undefined;
  let connectString = process.env.ZK_CONNECT;
  if (connectString === undefined || connectString === '') {
    process.stdout.write('No ZK_CONNECT given: starting a local ZooKeeper server... ');
    server = await TestingServer.start();
    connectString = server.connectString;
    process.stdout.write(`up at ${connectString}\n`);
  } else {
    process.stdout.write(`Using ZooKeeper at ${connectString}\n`);
  }
  const root = `/zk-recipes-demo/${Date.now()}`;
  try {
    await mutexTimeline(connectString, `${root}/mutex`);
    await otherRecipes(connectString, root, (line) => process.stdout.write(`${line}\n`));
  } finally {
    if (server !== undefined) {
      await server.stop();
      process.stdout.write('Local ZooKeeper server stopped.\n');
    }
  }
}

/** Four worker processes, each with its own session, take the mutex 3 times; print who holds it. */
async function mutexTimeline(connectString: string, lockPath: string): Promise<void> {
  const workers = 4;
  process.stdout.write(`\n${bold('InterProcessMutex')}: ${workers} OS processes, 3 rounds each, 400 ms holds, lock ${lockPath}\n`);
  const start = Date.now();
  let holder: string | undefined;
  let violations = 0;
  let acquisitions = 0;
  let inspecting: Promise<void> = Promise.resolve();
  const runs = Array.from({ length: workers }, (_, i) => {
    const name = `worker-${i + 1}`;
    const child = spawn(
      process.execPath,
      ['--conditions=@zk-recipes/source', '--import', 'tsx', here('./workers/mutexContender.ts'), connectString, lockPath, name, '3', '400'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const event = JSON.parse(line) as { name: string; event: string; at: number; round: number; token?: string; node?: string };
      const t = `${((event.at - start) / 1000).toFixed(3).padStart(7)}s`;
      if (event.event === 'acquired') {
        acquisitions++;
        // While they contend, show what an operator would see (the CLI takes a second to start).
        if (acquisitions === 1) inspecting = inspect(connectString, lockPath);
        if (holder !== undefined) violations++;
        holder = event.name;
        const lane = ' '.repeat(i * 4) + '████';
        process.stdout.write(`${t}  ${paint(i, `${lane.padEnd(workers * 4)}  ${event.name} holds the lock (round ${event.round}, fencing token ${event.token}, node …${event.node?.slice(-15)})`)}\n`);
      } else if (event.event === 'releasing') {
        holder = undefined;
        process.stdout.write(`${t}  ${' '.repeat(workers * 4)}  ${event.name} releases\n`);
      }
    });
    return new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${name} exited with ${code}`))));
    });
  });
  await Promise.all(runs);
  await inspecting;
  process.stdout.write(`${violations === 0 ? 'No two workers ever held the lock at once.' : `${violations} OVERLAPS SEEN`}\n`);
}

/**
 * Runs `zk-recipes inspect` (the CLI of @zk-recipes/cli, from its source) on the lock while the
 * workers contend, and prints what it shows: who holds it, who waits, from which host and process.
 */
async function inspect(connectString: string, lockPath: string): Promise<void> {
  const child = spawn(process.execPath, ['--conditions=@zk-recipes/source', '--import', 'tsx', here('../packages/cli/src/bin.ts'), 'inspect', lockPath, '--connect', connectString], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  const shown = output.trimEnd().split('\n').map((line) => `    ${line}`).join('\n');
  process.stdout.write(`\n  ${bold('$ zk-recipes inspect')} ${lockPath}   (meanwhile, from another process; exit ${code})\n${shown}\n\n`);
}

await main();
