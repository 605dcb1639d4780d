import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindOf, protectionGuidOf, sequenceOf, withoutProtection } from '@zk-recipes/core/recipe-kit';
import { findOverlaps, handoffGaps, maxConcurrency, testConnectString, uniqueRoot } from '../src/index.js';
import { ensureCuratorPrograms, spawnCuratorWorker, type CuratorLine, type CuratorWorker } from '../src/java.js';

// The Apache Curator peer itself: it must be right before it can judge our recipes.
const root = uniqueRoot('curator');
const started: CuratorWorker[] = [];

async function worker(args: string[]): Promise<CuratorWorker> {
  const w = await spawnCuratorWorker(args);
  started.push(w);
  return w;
}

/** Starts `count` workers held at `--wait-go`, then releases them together. */
async function startTogether(count: number, args: (i: number) => string[]): Promise<CuratorWorker[]> {
  const workers = await Promise.all(Array.from({ length: count }, (_, i) => worker(['--wait-go', ...args(i)])));
  await Promise.all(workers.map((w) => w.waitForLine((l) => l.type === 'ready')));
  for (const w of workers) w.go();
  return workers;
}

beforeAll(async () => {
  // Compile once up front so that the first test's timeout does not pay for javac.
  await ensureCuratorPrograms();
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map((w) => w.stop()));
});

describe('Curator peer (bench/java CuratorWorker)', () => {
  it('two Curator InterProcessMutex processes never overlap', async () => {
    const lockPath = `${root}/mutex`;
    const workers = await startTogether(2, () => ['mutex', testConnectString(), lockPath, '25', '5']);
    await Promise.all(workers.map((w) => w.finished()));
    const sections = workers.flatMap((w) => w.sections());
    expect(sections).toHaveLength(50);
    expect(new Set(sections.map((s) => s.worker)).size).toBe(2);
    // They must really have contended, or "no overlap" would prove nothing.
    expect(handoffGaps(sections).filter((h) => h.from !== h.to).length).toBeGreaterThan(0);
    expect(findOverlaps(sections)).toEqual([]);
  });

  it('InterProcessReadWriteLock: writers exclude everyone, readers only writers', async () => {
    const lockPath = `${root}/rw`;
    const workers = await startTogether(3, (i) => [
      i === 0 ? 'rw-write' : 'rw-read',
      testConnectString(),
      lockPath,
      '10',
      '10',
    ]);
    await Promise.all(workers.map((w) => w.finished()));
    const sections = workers.flatMap((w) => w.sections());
    expect(sections).toHaveLength(30);
    const writes = sections.filter((s) => s.lock === 'write');
    const reads = sections.filter((s) => s.lock === 'read');
    expect(reads.length).toBe(20);
    // Pairwise: reads may overlap each other, a write nothing.
    for (const write of writes) {
      for (const other of sections) {
        if (other !== write) expect(findOverlaps([write, other])).toEqual([]);
      }
    }
    // The readers did share the lock at least once, or the test would not tell the kinds apart.
    expect(maxConcurrency(reads)).toBe(2);
  });

  it.each(['leader-latch', 'leader-selector'])('%s: two Curator processes never lead at once; leadership moves between them', async (mode) => {
    const path = `${root}/${mode}`;
    const workers = await Promise.all(['a', 'b'].map((id) => worker([mode, testConnectString(), path, id, '20'])));
    await Promise.all(workers.map((w) => w.waitForLine((l) => l.type === 'section' && Number(l['id']) >= 5, 60_000)));
    for (const w of workers) w.child.stdin!.write('stop\n');
    await Promise.all(workers.map((w) => w.finished()));
    const sections = workers.flatMap((w) => w.sections());
    expect(findOverlaps(sections)).toEqual([]);
    expect(handoffGaps(sections).filter((h) => h.from !== h.to).length).toBeGreaterThan(3);
  });

  it('InterProcessSemaphoreV2 with 2 leases: never more than 2 holders', async () => {
    const path = `${root}/sem`;
    // 40 ms holds: Curator serializes every acquire through an internal lock, so with short holds
    // on a loaded machine a holder may be gone before the next one gets in (seen once with 10 ms).
    const workers = await startTogether(3, () => ['semaphore', testConnectString(), path, '2', '10', '40']);
    await Promise.all(workers.map((w) => w.finished()));
    const sections = workers.flatMap((w) => w.sections());
    expect(sections).toHaveLength(30);
    expect(findOverlaps(sections, { maxConcurrent: 2 })).toEqual([]);
    // Two leases were really in use at once, or the limit was never tested.
    expect(maxConcurrency(sections)).toBe(2);
  });
});

describe('node names Curator 5.4 writes (our recipes must write the same)', () => {
  const PROTECTED = /^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-/;
  let snapshots: (CuratorLine & {
    recipe: string;
    moment: string;
    path: string;
    sessionId: string;
    children: { name: string; data: string | null; ephemeralOwner: string; czxid: string }[];
  })[];

  beforeAll(async () => {
    const w = await worker(['names', testConnectString(), `${root}/names`]);
    const lines = await w.finished();
    snapshots = lines.filter((l) => l.type === 'names') as typeof snapshots;
    for (const s of snapshots) {
      console.log(`[curator names] ${s.recipe} (${s.moment}) ${s.path}:`, s.children.map((c) => c.name));
    }
  }, 60_000);

  function snapshot(recipe: string, moment: string, path: string): (typeof snapshots)[number] {
    const found = snapshots.find((s) => s.recipe === recipe && s.moment === moment && s.path === path);
    if (found === undefined) throw new Error(`no snapshot ${recipe} / ${moment} / ${path}`);
    return found;
  }

  it('InterProcessMutex: <lockPath>/_c_<uuid>-lock-<10 digits>, ephemeral, owned by the holder', () => {
    const held = snapshot('InterProcessMutex', 'held', `${root}/names/mutex`);
    expect(held.children).toHaveLength(1);
    const node = held.children[0]!;
    expect(node.name).toMatch(PROTECTED);
    expect(node.name).toMatch(/-lock-0000000000$/);
    expect(node.name).toHaveLength(40 + 'lock-'.length + 10);
    expect(protectionGuidOf(node.name)).toBe(node.name.slice(3, 39));
    expect(withoutProtection(node.name)).toBe('lock-0000000000');
    expect(kindOf(node.name)).toBe('lock-');
    expect(sequenceOf(node.name)).toBe(0);
    expect(node.ephemeralOwner).toBe(held.sessionId);
    expect(snapshot('InterProcessMutex', 'released', `${root}/names/mutex`).children).toEqual([]);
  });

  it('InterProcessReadWriteLock: __WRIT__ and __READ__ straight under the lock path, one sequence space', () => {
    const held = snapshot('InterProcessReadWriteLock', 'write+read held', `${root}/names/rw`);
    const byKind = new Map(held.children.map((c) => [kindOf(c.name), c.name]));
    expect([...byKind.keys()].sort()).toEqual(['__READ__', '__WRIT__']);
    const write = byKind.get('__WRIT__')!;
    const read = byKind.get('__READ__')!;
    expect(write).toMatch(PROTECTED);
    expect(read).toMatch(PROTECTED);
    // No separator between the kind and the sequence.
    expect(withoutProtection(write)).toBe('__WRIT__0000000000');
    expect(withoutProtection(read)).toBe('__READ__0000000001');
  });

  it('InterProcessSemaphoreV2: a mutex under <path>/locks (lock-) and leases under <path>/leases (lease-)', () => {
    const waiting = snapshot('InterProcessSemaphoreV2', 'acquire waiting for <path>/locks', `${root}/names/sem/locks`);
    expect(waiting.children).toHaveLength(2);
    for (const c of waiting.children) {
      expect(c.name).toMatch(PROTECTED);
      expect(kindOf(c.name)).toBe('lock-');
    }
    const dir = snapshot('InterProcessSemaphoreV2', 'lease held', `${root}/names/sem`);
    expect(dir.children.map((c) => c.name)).toEqual(['leases', 'locks']);
    const leases = snapshot('InterProcessSemaphoreV2', 'lease held', `${root}/names/sem/leases`);
    expect(leases.children).toHaveLength(1);
    expect(leases.children[0]!.name).toMatch(PROTECTED);
    expect(withoutProtection(leases.children[0]!.name)).toBe('lease-0000000000');
    expect(leases.children[0]!.ephemeralOwner).toBe(leases.sessionId);
    // The guard mutex is released as soon as the lease is taken.
    expect(snapshot('InterProcessSemaphoreV2', 'lease held', `${root}/names/sem/locks`).children).toEqual([]);
    expect(snapshot('InterProcessSemaphoreV2', 'lease returned', `${root}/names/sem/leases`).children).toEqual([]);
  });

  it('LeaderLatch: <path>/_c_<uuid>-latch-<10 digits>, ephemeral, its id as data', () => {
    const leading = snapshot('LeaderLatch', 'leading', `${root}/names/latch`);
    expect(leading.children).toHaveLength(1);
    const node = leading.children[0]!;
    expect(node.name).toMatch(PROTECTED);
    expect(withoutProtection(node.name)).toBe('latch-0000000000');
    expect(kindOf(node.name)).toBe('latch-');
    expect(node.data).toBe('curator-latch');
    expect(node.ephemeralOwner).toBe(leading.sessionId);
  });

  it("LeaderSelector: an InterProcessMutex's queue, <path>/_c_<uuid>-lock-<10 digits>, its id as data", () => {
    const leading = snapshot('LeaderSelector', 'leading', `${root}/names/selector`);
    expect(leading.children).toHaveLength(1);
    const node = leading.children[0]!;
    expect(node.name).toMatch(PROTECTED);
    expect(withoutProtection(node.name)).toBe('lock-0000000000');
    expect(node.data).toBe('curator-selector');
    expect(node.ephemeralOwner).toBe(leading.sessionId);
  });

  it("stores the client's default data (its local address) in every lock node", () => {
    const held = snapshot('InterProcessMutex', 'held', `${root}/names/mutex`);
    // Curator's builder defaults node data to the local host address; other processes may show it.
    expect(held.children[0]!.data).toMatch(/^[0-9a-f.:]+$/i);
  });
});
