import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireSession, TestingCluster, uniqueRoot } from '../src/index.js';
import { RAW_CREATE_MODE } from '../src/rawClient.js';
import { attach, connectRaw, isAlive, rawCreate, rawExists, rawMkdirs, until, within } from './support.js';

const root = uniqueRoot('testing-cluster');

describe('TestingCluster', () => {
  let cluster: TestingCluster;

  beforeAll(async () => {
    cluster = await TestingCluster.start({ size: 3, forceSync: false, minSessionTimeoutMs: 400 });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('is a real quorum: one leader, the others followers, each with its own myid', async () => {
    expect(cluster.servers).toHaveLength(3);
    expect(cluster.connectString).toBe(cluster.servers.map((s) => `127.0.0.1:${s.port}`).join(','));
    const modes = await Promise.all(cluster.servers.map((s) => s.mode()));
    expect(modes.filter((m) => m === 'leader')).toHaveLength(1);
    expect(modes.filter((m) => m === 'follower')).toHaveLength(2);
    const leader = await cluster.leader();
    expect(await leader.mode()).toBe('leader');
    for (const s of cluster.servers) {
      expect(readFileSync(join(s.dataDir, 'myid'), 'utf8').trim()).toBe(String(s.id));
      expect(isAlive(s.pid)).toBe(true);
    }
  });

  it('replicates: a write through one member is read through another', async () => {
    const a = await connectRaw(cluster.servers[0]!.connectString);
    const b = await connectRaw(cluster.servers[2]!.connectString);
    try {
      await rawMkdirs(a, root);
      await rawCreate(a, `${root}/replicated`, RAW_CREATE_MODE.PERSISTENT);
      // A follower may lag the leader; exists() through b is ordered after b's own sync point, so poll.
      let seen = false;
      for (let i = 0; i < 100 && !seen; i++) {
        seen = await rawExists(b, `${root}/replicated`);
        if (!seen) await new Promise((r) => setTimeout(r, 20));
      }
      expect(seen).toBe(true);
    } finally {
      a.close();
      b.close();
    }
  });

  it('survives killing the leader: a new leader is elected and data is kept; the old one rejoins', async () => {
    const oldLeader = await cluster.leader();
    const pid = oldLeader.pid;
    await oldLeader.kill();
    expect(isAlive(pid)).toBe(false);

    const newLeader = await cluster.leader();
    expect(newLeader.id).not.toBe(oldLeader.id);
    const survivors = cluster.servers.filter((s) => s !== oldLeader).map((s) => s.connectString).join(',');
    const client = await connectRaw(survivors);
    try {
      expect(await rawExists(client, `${root}/replicated`)).toBe(true);
      await rawCreate(client, `${root}/after-kill`, RAW_CREATE_MODE.PERSISTENT);
    } finally {
      client.close();
    }

    await oldLeader.restart();
    expect(await oldLeader.mode()).toBe('follower');
    const rejoined = await connectRaw(oldLeader.connectString);
    try {
      expect(await rawExists(rejoined, `${root}/after-kill`)).toBe(true);
    } finally {
      rejoined.close();
    }
  });

  it('a paused follower stops serving and serves again after resume', async () => {
    const leader = await cluster.leader();
    const follower = cluster.servers.find((s) => s !== leader)!;
    await follower.pause();
    try {
      expect(await follower.mode()).toBeNull();
      // The remaining two are still a quorum.
      expect(await (await cluster.leader()).mode()).toBe('leader');
    } finally {
      await follower.resume();
    }
    // After a pause longer than syncLimit the leader may have dropped it: poll until it has rejoined.
    await until(async () => ['follower', 'leader'].includes((await follower.mode()) ?? ''), 30_000, 'the resumed member to serve');
  });

  it.each(['kill', 'pause'] as const)('failLeader(%s): another member leads, the old one follows again, and it says when', async (how) => {
    const old = await cluster.leader();
    const before = process.hrtime.bigint();
    const electedAt = await cluster.failLeader(how);
    expect(electedAt).toBeGreaterThan(before);
    expect(electedAt).toBeLessThan(process.hrtime.bigint());
    const leader = await cluster.leader();
    expect(leader).not.toBe(old);
    expect(await old.mode()).toBe('follower');
  });

  it('expireSession works through the ensemble for a session held on a follower', async () => {
    const leader = await cluster.leader();
    const follower = cluster.servers.find((s) => s !== leader)!;
    const victim = await connectRaw(follower.connectString, 10_000);
    const observer = await connectRaw(leader.connectString);
    try {
      await within(rawMkdirs(observer, root), 10_000, 'mkdirs');
      await within(rawCreate(victim, `${root}/eph-on-follower`, RAW_CREATE_MODE.EPHEMERAL), 10_000, 'create ephemeral');
      const creds = { sessionId: victim.getSessionId(), password: victim.getSessionPassword() };
      await within(expireSession(cluster.connectString, creds), 20_000, 'expireSession');
      // The close was committed by the quorum: the leader no longer has the ephemeral node, and
      // the follower that held the session tells a client attaching to it that it expired.
      expect(await within(rawExists(observer, `${root}/eph-on-follower`), 10_000, 'exists')).toBe(false);
      expect(await within(attach(follower.connectString, creds), 10_000, 'attach')).toBe('expired');
    } finally {
      victim.close();
      observer.close();
    }
  });
});
