/**
 * The demo's ZooKeeper: the ensemble in ZK_CONNECT, or a local standalone server it starts (and
 * stops at the end), saying what it waits for while the JVM starts.
 */
import { fourLetterWord, TestingServer } from '@zk-recipes/testing';
import { say } from './screen.js';

export interface DemoZooKeeper {
  connectString: string;
  /** Stops the local server, if the demo started one; says so. */
  stop(): Promise<void>;
}

export async function demoZooKeeper(): Promise<DemoZooKeeper> {
  const given = process.env.ZK_CONNECT;
  if (given !== undefined && given !== '') {
    say(`Using the ZooKeeper ensemble in ZK_CONNECT: ${given}`);
    return { connectString: given, stop: async () => undefined };
  }
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const what = 'No ZK_CONNECT: starting a local ZooKeeper server (a JVM, on a free port of 127.0.0.1; it takes a few seconds)';
  say(`${what}...`);
  const ticker = setInterval(() => say(`   ...JVM still starting (${elapsed()})`), 1000);
  let server: TestingServer;
  try {
    // No fsync: nothing here needs to survive a crash of the machine.
    server = await TestingServer.start({ forceSync: false });
  } finally {
    clearInterval(ticker);
  }
  const version = await fourLetterWord('127.0.0.1', server.port, 'srvr')
    .then((srvr) => /^Zookeeper version: ([^-,\s]+)/m.exec(srvr)?.[1])
    .catch(() => undefined);
  say(`ZooKeeper ${version ?? ''} serving on ${server.connectString} (pid ${server.pid}) after ${elapsed()}.`.replace('  ', ' '));
  const pid = server.pid;
  let stopped: Promise<void> | undefined;
  return {
    connectString: server.connectString,
    // Once, whoever asks first (the end of the demo, or Ctrl-C).
    stop: () =>
      (stopped ??= server.stop().then(() => say(`Local ZooKeeper server (pid ${pid}) stopped; its data directory removed.`))),
  };
}
