package zkrecipes;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/** Curator's figures for the mutex benchmarks, measured the same way as ours. */
final class Bench {
    private Bench() {}

    /** n x (acquire, release) on a lock nobody else uses, after a warm-up that lets the JIT settle. */
    static void uncontended(CuratorWorker.Options o, CuratorFramework client) throws Exception {
        InterProcessMutex lock = new InterProcessMutex(client, o.arg(2, "lockPath"));
        int n = o.intArg(3, "n");
        // The gate before the warm-up, as the Node worker has it (its stdio would otherwise make V8
        // recompile the socket's stream code inside the measured window).
        CuratorWorker.startGate(o);
        for (int i = 0; i < o.warmup; i++) {
            lock.acquire();
            lock.release();
        }
        long[] acquireNs = new long[n];
        long[] releaseNs = new long[n];
        long cpuBegan = CuratorWorker.processCpuNs();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            lock.acquire();
            long t1 = System.nanoTime();
            lock.release();
            long t2 = System.nanoTime();
            acquireNs[i] = t1 - t0;
            releaseNs[i] = t2 - t1;
        }
        long cpuNs = CuratorWorker.processCpuNs() - cpuBegan;
        long[] a = CuratorWorker.sortedCopy(acquireNs);
        long[] r = CuratorWorker.sortedCopy(releaseNs);
        CuratorWorker.emit(CuratorWorker.line(
                "type", "bench", "mode", "bench-uncontended", "worker", CuratorWorker.WORKER, "n", n,
                "warmup", o.warmup,
                "acquireP50Ns", CuratorWorker.percentile(a, 0.5), "acquireP99Ns", CuratorWorker.percentile(a, 0.99),
                "releaseP50Ns", CuratorWorker.percentile(r, 0.5), "releaseP99Ns", CuratorWorker.percentile(r, 0.99),
                "acquireNs", acquireNs, "releaseNs", releaseNs, "cpuNs", cpuNs));
    }

    /**
     * n threads of one process, each with its own InterProcessMutex on one path, all queued behind
     * a lock this thread holds; then the lock is released and the queue drains. Curator blocks a
     * thread per waiter, so this is its equivalent of n concurrent waiters in one Node process.
     */
    static void manyWaiters(CuratorWorker.Options o, CuratorFramework client) throws Exception {
        String path = o.arg(2, "lockPath");
        int n = o.intArg(3, "n");
        InterProcessMutex gate = new InterProcessMutex(client, path);
        gate.acquire();
        CuratorWorker.startGate(o);
        long heapBefore = usedHeapAfterGc();
        CountDownLatch done = new CountDownLatch(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long queueStart = System.nanoTime();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(null, () -> {
                InterProcessMutex m = new InterProcessMutex(client, path);
                try {
                    m.acquire();
                    m.release();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }, "waiter-" + i, 256 * 1024);
            t.setDaemon(true);
            t.start();
        }
        // Queued means: every waiter's node is in the directory, behind ours.
        while (true) {
            List<String> children = client.getChildren().forPath(path);
            if (children.size() >= n + 1) break;
            Thread.sleep(5);
        }
        long queuedNs = System.nanoTime() - queueStart;
        long heapQueued = usedHeapAfterGc();
        long drainStart = System.nanoTime();
        gate.release();
        done.await();
        long drainNs = System.nanoTime() - drainStart;
        if (failure.get() != null) throw new IllegalStateException("a waiter failed", failure.get());
        CuratorWorker.emit(CuratorWorker.line(
                "type", "bench", "mode", "many-waiters", "worker", CuratorWorker.WORKER, "n", n,
                "queueNs", queuedNs, "drainNs", drainNs, "heapGrowthBytes", heapQueued - heapBefore));
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        Thread.sleep(50);
        return rt.totalMemory() - rt.freeMemory();
    }
}
