/**
 * Run with NODE_DEBUG=zk-recipes by channels' NODE_DEBUG test: one acquisition that waits and is
 * granted, one that fails (a try on a held lock), then the sessions close. Prints the nodes as one
 * JSON line on stdout: `{ holder, waiter }`.
 * Usage: debugRun.ts <connectString> <lock path>
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';

const [connectString, path] = process.argv.slice(2);
if (connectString === undefined || path === undefined) throw new Error('usage: debugRun.ts <connectString> <lock path>');
const first = await ZkSession.connect({ connectString });
const second = await ZkSession.connect({ connectString });
const holder = await new InterProcessMutex(first, path).acquire();
const waiterLock = new InterProcessMutex(second, path);
const granted = waiterLock.acquire();
while ((await first.getChildren(path)).children.length < 2) await new Promise((resolve) => setImmediate(resolve));
await holder.release();
const waiter = await granted;
const refused = await new InterProcessMutex(first, path).tryAcquire();
if (refused !== null) throw new Error('the try should have found the lock held');
await waiter.release();
await first.close();
await second.close();
process.stdout.write(`${JSON.stringify({ holder: holder.path, waiter: waiter.path })}\n`);
