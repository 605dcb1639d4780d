/**
 * What anyone who can write to ZooKeeper can put in front of the CLI: owner data with newlines and
 * terminal escapes, huge host names, node and directory names with bidi overrides and zero-width
 * characters. The CLI must print one escaped row per contender, never a control byte of theirs,
 * and output bounded per row whatever the data's size. Owner data is forged here the way anyone
 * forges it: a session of its own creating nodes with the data it likes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeOwnerData, ZkSession } from '@zk-recipes/core';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import type { Io, LockListing, LockSnapshot } from '../src/index.js';
import { main } from '../src/main.js';
import { connectArgs, runCli, startCli, type CliResult, type LineProcess } from './support/processes.js';

const root = uniqueRoot('cli-hostile');
let forger: ZkSession;

beforeAll(async () => {
  forger = await ZkSession.connect({ connectString: testConnectString() });
});
afterAll(async () => {
  await forger.close();
});

/** Creates a contender node of `kind` in `directory` (made if missing) carrying `data`: an ephemeral sequential node, as a recipe makes it. */
async function forge(directory: string, kind: string, data: Uint8Array): Promise<string> {
  await forger.mkdirp(directory);
  return (await forger.create(`${directory}/_c_${randomUUID()}-${kind}`, data, { mode: 'ephemeral_sequential' })).path;
}

/**
 * Every character a terminal acts on or hides, found in `bytes`: C0 controls but the newline that
 * ends a line, DEL, C1 controls, line and paragraph separators, bidi controls, zero-width ones.
 * Checked on the bytes (ESC, CR, BEL...) and on their UTF-8 reading (the rest).
 */
function hiddenCharacters(bytes: Buffer): string[] {
  const found: string[] = [];
  for (const byte of bytes) if ((byte < 0x20 && byte !== 0x0a) || byte === 0x7f) found.push(`byte 0x${byte.toString(16)}`);
  for (const match of bytes.toString('utf8').matchAll(/[\u0080-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu)) {
    found.push(`U+${match[0].codePointAt(0)!.toString(16).padStart(4, '0')}`);
  }
  return found;
}

/** The cells of a table row (columns are three spaces apart; a cell never holds two spaces in a row). */
const cells = (row: string) => row.split(/ {2,}/);
const lines = (run: CliResult) => run.stdoutBytes.toString('utf8').replace(/\n$/, '').split('\n');

describe("an election participant's id with newlines, terminal escapes, and a megabyte of it", () => {
  const forgedId = 'worker\n_c_00000000-0000-4000-8000-000000000000-latch-0000000000   latch   leader\x1b[2J\x1b[H\u202e';

  it('inspect prints one escaped row per participant (the heading too), bounded; --json keeps the id escaped and cut to 1024 characters', async () => {
    const path = `${root}/forged-ids`;
    await forge(path, 'latch-', Buffer.from(forgedId));
    await forge(path, 'latch-', Buffer.from('x'.repeat(1_000_000)));
    const text = await runCli(['inspect', path, ...connectArgs()]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(hiddenCharacters(text.stdoutBytes)).toEqual([]);
    const rows = lines(text);
    expect(rows).toHaveLength(2 + 2);
    const escaped = 'worker\\n_c_00000000-0000-4000-8000-000000000000-latch-0000000000\\x20\\x20\\x20latch\\x20\\x20\\x20leader\\x1b[2J\\x1b[H\\u202e';
    // The heading keeps spaces (it is one line, not a table cell); the cells escape every run of them.
    expect(rows[0]).toBe(`${path}: leader election (LeaderLatch), leader ${escaped.replaceAll('\\x20', ' ')}, 2 participants`);
    const table = rows.slice(1).map(cells);
    expect(table.map((row) => row[3])).toEqual(['ID', escaped, `${'x'.repeat(127)}…`]);
    expect(Math.max(...rows.map((row) => row.length))).toBeLessThan(600);

    const json = await runCli(['inspect', path, '--json', ...connectArgs()]);
    expect(hiddenCharacters(json.stdoutBytes)).toEqual([]);
    const snapshot = JSON.parse(json.stdoutBytes.toString('utf8')) as LockSnapshot;
    expect(snapshot.leader).toBe(forgedId);
    expect(snapshot.contenders.map((c) => c.id)).toEqual([forgedId, `${'x'.repeat(1023)}…`]);
    expect(json.stdoutBytes.length).toBeLessThan(5_000);
  });
});

describe('owner data with newlines and terminal escapes', () => {
  const forgedHost = 'vm\n_c_00000000-0000-4000-8000-000000000000-lock-0000000000   lock   holder   0000000000000001   1s    vm     1   admin\x1b[2J\x1b[H\x1b[31m';
  const forgedLabel = '\x1b[2J\x1b[H\x1b]0;owned\x07\rholder\u009b31m\u202eredloh';

  it('inspect prints one escaped row per contender, and none of their control bytes', async () => {
    const path = `${root}/forged-rows`;
    const holder = await forge(path, 'lock-', encodeOwnerData({ host: 'vm', pid: 10, label: 'real' }));
    await forge(path, 'lock-', encodeOwnerData({ host: forgedHost, pid: 11, label: forgedLabel }));
    await forge(path, 'lock-', encodeOwnerData({ host: 'vm', pid: 12, label: `two\nlines` }));

    const text = await runCli(['inspect', path, ...connectArgs()]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(hiddenCharacters(text.stdoutBytes)).toEqual([]);
    const rows = lines(text);
    // The heading, the headers, and exactly one row per node: nothing forged a row.
    expect(rows).toHaveLength(2 + 3);
    expect(rows[0]).toBe(`${path}: mutex, 1 holder, 2 waiters`);
    const table = rows.slice(1).map(cells);
    expect(table.every((row) => row.length === table[0]!.length)).toBe(true);
    expect(table.slice(1).map((row) => [row[0], row[2], row[6]])).toEqual([
      [holder.split('/').pop(), 'holder', '10'],
      [expect.any(String), 'waiter', '11'],
      [expect.any(String), 'waiter', '12'],
    ]);
    // What they wrote is there to see, escaped as JavaScript writes it, and cut to its column.
    expect(table[2]![5]).toBe('vm\\n_c_00000000-0000-4000-8000-000000000000-lock-0000000000\\x20…');
    expect(table[2]![7]).toBe('\\x1b[2J\\x1b[H\\x1b]0;owned\\x07\\rholder\\x9b31m\\u202eredloh');
    expect(table[3]![7]).toBe('two\\nlines');
  });

  it('inspect --json keeps them exactly, with nothing a terminal acts on left unescaped', async () => {
    const path = `${root}/forged-json`;
    await forge(path, 'lock-', encodeOwnerData({ host: forgedHost, pid: 11, label: `${forgedLabel}\u2028\u200b\u2066` }));
    const run = await runCli(['inspect', path, '--json', ...connectArgs()]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(hiddenCharacters(run.stdoutBytes)).toEqual([]);
    const snapshot = JSON.parse(run.stdoutBytes.toString('utf8')) as LockSnapshot;
    expect(snapshot.contenders[0]!.owner).toEqual({ host: forgedHost, pid: 11, label: `${forgedLabel}\u2028\u200b\u2066` });
  });

  it('revoke names the owner escaped', async () => {
    const path = `${root}/forged-revoke`;
    const node = await forge(path, 'lock-', encodeOwnerData({ host: forgedHost, pid: 11, label: forgedLabel }));
    const run = await runCli(['revoke', node, ...connectArgs()]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(hiddenCharacters(run.stdoutBytes)).toEqual([]);
    const [first, second, ...rest] = lines(run);
    expect(rest).toEqual([]);
    expect(first).toMatch(new RegExp(`^revocation requested: wrote __REVOKE__ to ${node} \\(session [0-9a-f]{16}, host vm\\\\n_c_.* pid 11 label \\\\x1b\\[2J\\\\x1b\\[H\\\\x1b\\]0;owned\\\\x07\\\\rholder.*\\)\\.$`));
    expect(second).toBe('The holder releases it if it listens for revocation; nothing was deleted.');
  });
});

/** Resolves once the watching CLI printed `text` (it reacts to a ZooKeeper event: no timer). */
function printed(cli: LineProcess, text: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const check = () => (cli.stdoutBytes.includes(text) ? resolve() : cli.running ? undefined : reject(new Error(cli.describe())));
    cli.child.stdout!.on('data', () => setImmediate(check));
    check();
  });
}

describe('inspect --watch redraws', () => {
  const forgedHost = 'vm\n_c_00000000-0000-4000-8000-000000000000-lock-0000000000   lock   holder\x1b[2J\x1b[H';

  it('owner data forged while it watches is redrawn escaped (not a terminal: one snapshot after another)', async () => {
    const path = `${root}/watched`;
    const node = await forge(path, 'lock-', encodeOwnerData({ host: 'vm', pid: 1, label: 'before' }));
    const cli = startCli(['inspect', path, '--watch', ...connectArgs()]);
    try {
      await printed(cli, 'before');
      await forger.setData(node, encodeOwnerData({ host: forgedHost, pid: 1, label: 'after' }));
      await printed(cli, 'after');
      cli.child.kill('SIGINT');
      expect((await cli.exited).exitCode).toBe(0);
      expect(hiddenCharacters(cli.stdoutBytes)).toEqual([]);
      const snapshots = cli.stdoutBytes.toString('utf8').split(/^--- .*\n/m).slice(1);
      expect(snapshots).toHaveLength(2);
      // Each: the heading, the headers, the one row, and the blank line between snapshots.
      for (const snapshot of snapshots) expect(snapshot.split('\n')).toHaveLength(5);
    } finally {
      await cli.stop();
    }
  });

  it('on a terminal, the only escape sequence is its own clear-screen in front of each redraw', async () => {
    const path = `${root}/watched-tty`;
    const node = await forge(path, 'lock-', encodeOwnerData({ host: 'vm', pid: 1, label: 'before' }));
    const writes: string[] = [];
    const seen = new Map<string, () => void>();
    const shown = (text: string) => new Promise<void>((resolve) => (writes.some((w) => w.includes(text)) ? resolve() : seen.set(text, resolve)));
    const stop = new AbortController();
    const io: Io = {
      stdout: {
        isTTY: true,
        write: (text: string) => {
          writes.push(text);
          for (const [wanted, resolve] of seen) if (text.includes(wanted)) resolve();
          return true;
        },
      },
      stderr: { write: (text: string) => writes.push(text) },
      env: {},
      signal: stop.signal,
    };
    const running = main(['inspect', path, '--watch', ...connectArgs()], io);
    await shown('before');
    await forger.setData(node, encodeOwnerData({ host: forgedHost, pid: 1, label: 'after' }));
    await shown('after');
    stop.abort();
    expect(await running).toBe(0);
    expect(writes).toHaveLength(2);
    for (const write of writes) {
      expect(write.startsWith('\x1b[2J\x1b[H')).toBe(true);
      expect(hiddenCharacters(Buffer.from(write.slice('\x1b[2J\x1b[H'.length)))).toEqual([]);
    }
  });
});

describe('huge owner data', () => {
  it('one 700 KB host among 122 contenders: bounded rows, the cut shown with an ellipsis; --json bounded too', async () => {
    const path = `${root}/huge-host`;
    const huge = 'h'.repeat(700_000);
    await Promise.all(Array.from({ length: 121 }, (_, i) => forge(path, 'lock-', encodeOwnerData({ host: `host-${i}`, pid: i, label: 'pool' }))));
    await forge(path, 'lock-', encodeOwnerData({ host: huge, pid: 999, label: 'l'.repeat(200_000) }));

    const text = await runCli(['inspect', path, ...connectArgs()]);
    expect(text.exitCode, text.stderr).toBe(0);
    const rows = lines(text);
    expect(rows).toHaveLength(2 + 122);
    // 122 rows of at most a few hundred characters: ~86 MB when every row was padded to the host.
    expect(text.stdoutBytes.length).toBeLessThan(100_000);
    const last = cells(rows.at(-1)!);
    expect(last[6]).toBe('999');
    expect(last[5]).toMatch(/^h+…$/);
    expect(last[7]).toMatch(/^l+…$/);

    const json = await runCli(['inspect', path, '--json', ...connectArgs()]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(json.stdoutBytes.length).toBeLessThan(100_000);
    const owner = (JSON.parse(json.stdout) as LockSnapshot).contenders.at(-1)!.owner!;
    expect(owner.pid).toBe(999);
    expect(owner.host).toMatch(/^h{254}…$/);
    expect(owner.label).toMatch(/^l{127}…$/);
  });
});

// Four CLI processes one after another: more than the default 60 s on a heavily loaded machine.
describe('names that hide or reorder what they show', { timeout: 180_000 }, () => {
  const rlo = '\u202e'; // RIGHT-TO-LEFT OVERRIDE
  const zwsp = '\u200b'; // ZERO WIDTH SPACE

  it('a lock and a node named with bidi overrides and zero-width characters: escaped in inspect and ls, exact in --json', async () => {
    const lock = `${root}/names/orders${rlo}redloh${zwsp}`;
    await forge(lock, 'lock-', encodeOwnerData({ host: 'vm', pid: 1 }));
    const odd = await forge(lock, `lock-${zwsp}\u2066`, encodeOwnerData({ host: 'vm', pid: 2 }));

    const text = await runCli(['inspect', lock, ...connectArgs()]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(hiddenCharacters(text.stdoutBytes)).toEqual([]);
    expect(lines(text)[0]).toBe(`${root}/names/orders\\u202eredloh\\u200b: mutex, 1 holder, 1 waiter`);
    expect(cells(lines(text)[3]!).slice(0, 2)).toEqual([`${odd.split('/').pop()!.replace(zwsp, '\\u200b').replace('\u2066', '\\u2066')}`, 'other']);

    const json = await runCli(['inspect', lock, '--json', ...connectArgs()]);
    expect(hiddenCharacters(json.stdoutBytes)).toEqual([]);
    expect((JSON.parse(json.stdout) as LockSnapshot).contenders.map((c) => c.path).at(-1)).toBe(odd);

    const listed = await runCli(['ls', `${root}/names`, ...connectArgs()]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(hiddenCharacters(listed.stdoutBytes)).toEqual([]);
    expect(cells(lines(listed)[1]!)[0]).toBe(`${root}/names/orders\\u202eredloh\\u200b`);
    const listedJson = await runCli(['ls', `${root}/names`, '--json', ...connectArgs()]);
    expect(hiddenCharacters(listedJson.stdoutBytes)).toEqual([]);
    expect((JSON.parse(listedJson.stdout) as LockListing).locks.map((l) => l.path)).toEqual([lock]);
  });

  it('ls: a lock with a 200,000-character name among others: every row bounded, the cut shown', async () => {
    const under = `${root}/long-names`;
    const long = `${under}/${'n'.repeat(200_000)}`;
    await forge(long, 'lock-', encodeOwnerData({ host: 'vm', pid: 1 }));
    for (let i = 0; i < 30; i++) await forge(`${under}/lock-${i}`, 'lock-', encodeOwnerData({ host: 'vm', pid: 1 }));

    const run = await runCli(['ls', under, ...connectArgs()]);
    expect(run.exitCode, run.stderr).toBe(0);
    const rows = lines(run);
    expect(rows).toHaveLength(1 + 31);
    expect(run.stdoutBytes.length).toBeLessThan(20_000);
    expect(rows.some((row) => /^\/\S*n+…   mutex /.test(row))).toBe(true);
  });

  it('errors that quote what they found: escaped, and bounded', async () => {
    const directory = `${root}/not-a-lock`;
    await forger.mkdirp(`${directory}/a${rlo}b`);
    await forger.mkdirp(`${directory}/${'x'.repeat(50_000)}`);
    await forger.mkdirp(`${directory}/c${zwsp}`);
    const run = await runCli(['inspect', directory, ...connectArgs()]);
    expect(run).toMatchObject({ exitCode: 1, stdout: '' });
    expect(hiddenCharacters(run.stderrBytes)).toEqual([]);
    expect(run.stderr).toMatch(/^zk-recipes: NOT_A_LOCK: .* is not a lock: none of its 3 children is a lock node \(.*\)/);
    expect(run.stderr).toMatch(/a\\u202eb/);
    expect(run.stderrBytes.length).toBeLessThan(2_000);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe("a semaphore's recorded maximum", () => {
  it('a record no semaphore can write (above 2^31-1) is no maximum', async () => {
    const path = `${root}/semaphore-record`;
    await forger.mkdirp(path, 'persistent', { data: Buffer.from('9999999999') });
    await forge(path, 'lease-', encodeOwnerData({ host: 'vm', pid: 1 }));
    const run = await runCli(['inspect', path, '--json', ...connectArgs()]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ recipe: 'semaphore', maxLeases: null, contenders: [{ role: 'unknown' }] });
  });
});
