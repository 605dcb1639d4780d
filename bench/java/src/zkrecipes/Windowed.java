package zkrecipes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * Curator's side of {@code npm run bench:compare}'s measured window: the protocol of the Node
 * workers' {@code bench/compare/window.ts}, in Java. Connect, print ready, wait for {@code go};
 * warm up on the scenario's own sections, printing a {@code warm} line every 250 ms while the
 * bench writes {@code tick}; the bench's {@code window <start> <end> <stop>} line (System.nanoTime,
 * the CLOCK_MONOTONIC of Node's hrtime) arrives during the warm-up; sections whose hold starts in
 * [start, end) are logged and the process CPU is read at both ends, by timers, with no stdio in
 * the window; the loops run on to {@code stop}, then one {@code result} line.
 *
 * <pre>
 * modes (after the connect string):
 *   win-mutex | win-rw-read | win-rw-write   path holdMs
 *   win-semaphore                            path holdMs maxLeases
 *   win-entities                             path holdMs threads keys   (an InterProcessMutex per key)
 *   win-drain                                path holdMs rounds group
 * </pre>
 */
final class Windowed {
    private static final long NEVER = Long.MAX_VALUE / 4;
    private static final long PROGRESS_MS = 250;
    private static final long COLD_SECTIONS = 100;
    private static final int FIELDS = 5;

    /** Something held: released once. */
    interface Held {
        void release() throws Exception;
    }

    /** Takes a lock or a lease. */
    interface Acquire {
        Held acquire() throws Exception;
    }

    /** One thread's sections, warm-up and window alike, times from go (see {@link #section}). */
    static final class Log {
        private long[] data = new long[FIELDS * 4096];
        private int length;

        void push(long acquire, long held, long holdEnd, long released, long key) {
            if (length + FIELDS > data.length) data = java.util.Arrays.copyOf(data, data.length * 2);
            data[length] = acquire;
            data[length + 1] = held;
            data[length + 2] = holdEnd;
            data[length + 3] = released;
            data[length + 4] = key;
            length += FIELDS;
        }
    }

    private volatile long start = NEVER;
    private volatile long end = NEVER;
    private volatile boolean stopped;
    private final long goAt = System.nanoTime();
    private final AtomicLong sections = new AtomicLong();
    private volatile long coldNs = -1;
    private volatile long cpuAtStart = -1;
    private volatile long cpuNs = -1;
    private final List<Log> logs = new ArrayList<>();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-window");
        t.setDaemon(true);
        return t;
    });
    private final AtomicReference<ScheduledFuture<?>> progress = new AtomicReference<>();

    private Windowed() {}

    /** Prints ready, returns on {@code go} with the warm-up begun (progress lines, stdin read on). */
    static Windowed gate() throws IOException {
        CuratorWorker.emit(CuratorWorker.line("type", "ready", "worker", CuratorWorker.WORKER));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String l;
        while ((l = in.readLine()) != null && !l.trim().equals("go")) {
            // nothing else comes before go
        }
        if (l == null) throw new IllegalStateException("stdin closed before \"go\"");
        Windowed w = new Windowed();
        w.progress.set(w.timers.scheduleAtFixedRate(() -> CuratorWorker.emit(CuratorWorker.line(
                "type", "warm", "n", w.sections.get())), PROGRESS_MS, PROGRESS_MS, TimeUnit.MILLISECONDS));
        Thread reader = new Thread(() -> w.readCommands(in), "bench-stdin");
        reader.setDaemon(true);
        reader.start();
        return w;
    }

    private void readCommands(BufferedReader in) {
        try {
            String l;
            while ((l = in.readLine()) != null) {
                String[] words = l.trim().split(" ");
                // `tick`: read and dropped; it keeps stdin in use through the warm-up, as in Node.
                if (!words[0].equals("window") || start != NEVER) continue;
                long s = Long.parseLong(words[1]);
                long e = Long.parseLong(words[2]);
                long stop = Long.parseLong(words[3]);
                end = e;
                start = s;
                at(s, () -> {
                    cpuAtStart = CuratorWorker.processCpuNs();
                    progress.get().cancel(false);
                });
                at(e, this::readCpu);
                at(stop, () -> stopped = true);
            }
        } catch (IOException ignored) {
            // as a closed stdin
        }
        // The bench is gone (it closes our stdin only after we are done): do not run on alone.
        if (!stopped) System.exit(3);
    }

    private void at(long when, Runnable run) {
        if (when >= NEVER) return;
        timers.schedule(run, Math.max(0, when - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private synchronized void readCpu() {
        if (cpuAtStart < 0 || cpuNs >= 0) return;
        cpuNs = CuratorWorker.processCpuNs() - cpuAtStart;
    }

    Log newLog() {
        synchronized (logs) {
            Log log = new Log();
            logs.add(log);
            return log;
        }
    }

    boolean begun() {
        return System.nanoTime() >= start;
    }

    /**
     * One timed section: acquire, hold {@code holdMs}, release, logged. The same code before and in
     * the window: a branch first taken when the window opens would be an uncommon trap in C2's code
     * (a deoptimisation there); which sections were in the window is sorted out at the end.
     */
    void section(Log log, Acquire acquire, int holdMs, long key) throws Exception {
        long acquireAt = System.nanoTime();
        Held held = acquire.acquire();
        long heldAt = System.nanoTime();
        if (holdMs > 0) Thread.sleep(holdMs);
        long holdEndAt = System.nanoTime();
        held.release();
        long releasedAt = System.nanoTime();
        long g = goAt;
        log.push(acquireAt - g, heldAt - g, holdEndAt - g, releasedAt - g, key);
        if (sections.incrementAndGet() == COLD_SECTIONS) coldNs = releasedAt - g;
    }

    /** A loop body, given its thread's log. */
    interface Body {
        void run(Log log) throws Exception;
    }

    /** {@code threads} loops of {@code body} until stop (one on this thread when threads is 1). */
    void loopUntilStopped(int threads, Body body) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Log log = newLog();
            Runnable loop = () -> {
                try {
                    while (!stopped && failure.get() == null) body.run(log);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            };
            if (threads == 1) {
                loop.run();
            } else {
                Thread t = new Thread(loop, "section-" + i);
                t.start();
                started.add(t);
            }
        }
        for (Thread t : started) t.join();
        if (failure.get() != null) throw new IllegalStateException("a section failed", failure.get());
    }

    /** The result line: the sections of every thread held in the window; called once the loops are joined. */
    void finish(String lock) {
        stopped = true;
        readCpu();
        timers.shutdownNow();
        long from = start - goAt;
        long to = end - goAt;
        long before = 0;
        int total = 0;
        for (Log log : logs) total += log.length;
        long[] out = new long[total];
        int n = 0;
        for (Log log : logs) {
            long[] d = log.data;
            for (int j = 0; j < log.length; j += FIELDS) {
                long held = d[j + 1];
                if (held < from) {
                    before++;
                } else if (held < to) {
                    out[n++] = d[j] - from;
                    out[n++] = held - from;
                    out[n++] = d[j + 2] - from;
                    out[n++] = d[j + 3] - from;
                    out[n++] = d[j + 4];
                }
            }
        }
        CuratorWorker.emit(CuratorWorker.line("type", "result", "worker", CuratorWorker.WORKER, "lock", lock,
                "warmSections", before, "coldNs", coldNs, "cpuUs", cpuNs < 0 ? -1 : cpuNs / 1000,
                "sections", java.util.Arrays.copyOf(out, n)));
    }

    private static Acquire lock(InterProcessLock lock) {
        return () -> {
            lock.acquire();
            return lock::release;
        };
    }

    static void run(String mode, CuratorWorker.Options o, CuratorFramework client) throws Exception {
        String path = o.arg(2, "path");
        int holdMs = o.intArg(3, "holdMs");
        switch (mode) {
            case "win-mutex":
            case "win-rw-read":
            case "win-rw-write":
            case "win-semaphore": {
                Acquire acquire;
                String kind;
                if (mode.equals("win-mutex")) {
                    acquire = lock(new InterProcessMutex(client, path));
                    kind = "mutex";
                } else if (mode.equals("win-semaphore")) {
                    InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, path, o.intArg(4, "maxLeases"));
                    acquire = () -> {
                        Lease lease = semaphore.acquire();
                        return () -> semaphore.returnLease(lease);
                    };
                    kind = "semaphore";
                } else {
                    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, path);
                    boolean read = mode.equals("win-rw-read");
                    acquire = lock(read ? rw.readLock() : rw.writeLock());
                    kind = read ? "read" : "write";
                }
                Windowed w = gate();
                w.loopUntilStopped(1, log -> w.section(log, acquire, holdMs, 0));
                w.finish(kind);
                break;
            }
            case "win-entities": {
                int threads = o.intArg(4, "threads");
                int keys = o.intArg(5, "keys");
                // An InterProcessMutex per key, made on first use and kept; Curator's mutex is
                // re-entrant per thread, so the threads of this process exclude each other too.
                ConcurrentHashMap<Integer, InterProcessMutex> locks = new ConcurrentHashMap<>();
                Windowed w = gate();
                w.loopUntilStopped(threads, log -> {
                    int key = ThreadLocalRandom.current().nextInt(keys);
                    InterProcessMutex m = locks.computeIfAbsent(key, k -> new InterProcessMutex(client, path + "/k" + k));
                    w.section(log, lock(m), holdMs, key);
                });
                w.finish("entities");
                break;
            }
            case "win-drain": {
                int rounds = o.intArg(4, "rounds");
                Acquire warm = lock(new InterProcessMutex(client, path + "/warm-" + o.intArg(5, "group")));
                List<Acquire> drains = new ArrayList<>();
                for (int r = 0; r < rounds; r++) drains.add(lock(new InterProcessMutex(client, path + "/drain-" + r)));
                Windowed w = gate();
                Log log = w.newLog();
                // Held 1 ms, not 0: the drain's holds sleep, and that path must be compiled too. Key -1:
                // a warm-up section still in hand when the window opens is not one of the drain's.
                while (!w.begun()) w.section(log, warm, 1, -1);
                for (int r = 0; r < rounds; r++) w.section(log, drains.get(r), holdMs, r);
                w.finish("drain");
                break;
            }
            default:
                throw new CuratorWorker.UsageError("unknown mode " + mode);
        }
    }
}
