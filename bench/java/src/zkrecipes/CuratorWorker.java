package zkrecipes;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.data.Stat;

/**
 * The Apache Curator side of zk-recipes' interop tests and benchmarks: one process, one Curator
 * client, one mode. Every output line on stdout is one JSON object with a {@code type}.
 *
 * <p>Timestamps are {@link System#nanoTime()}, which on Linux reads CLOCK_MONOTONIC, the clock of
 * Node's {@code process.hrtime.bigint()}, so sections of Java and Node processes on one machine can
 * be compared directly (the {@code clock} mode lets a test check that).
 *
 * <pre>
 * usage: CuratorWorker [flags] mode args...
 *   clock
 *   mutex              connect lockPath iterations holdMs
 *   rw-read | rw-write connect lockPath iterations holdMs
 *   semaphore          connect path maxLeases iterations holdMs
 *   bench-uncontended  connect lockPath n
 *   many-waiters       connect lockPath n
 *   names              connect basePath
 *   mutex-revocable    connect lockPath   (makeRevocable, acquire, print held + our node, release when asked)
 *   revoke             connect nodePath   (Revoker.attemptRevoke: ask that node's holder to release)
 *   leader-latch       connect path id holdMs   (LeaderLatch; a leader resigns after holdMs, 0: when told)
 *   leader-selector    connect path id holdMs   (LeaderSelector with autoRequeue; a term lasts holdMs, 0: until told)
 *   participants       connect path latch|selector   (getParticipants() and getLeader() of an election)
 *   win-mutex | win-rw-read | win-rw-write | win-semaphore | win-entities | win-drain
 *                      connect path holdMs ...   (bench:compare's warmed, windowed loops: see Windowed)
 * flags: --session-timeout-ms N (10000)  --connection-timeout-ms N (15000)
 *        --retry exponential|one-time (exponential: base 100 ms, 3 retries)
 *        --warmup N (bench-uncontended, 200)  --start-at epochMs  --wait-go (read "go" on stdin)
 * </pre>
 */
public final class CuratorWorker {
    static final String WORKER = "java-" + ProcessHandle.current().pid();

    /** Parsed command line. */
    static final class Options {
        int sessionTimeoutMs = 10_000;
        int connectionTimeoutMs = 15_000;
        String retry = "exponential";
        int warmup = 200;
        long startAtEpochMs = -1;
        boolean waitGo = false;
        final List<String> positional = new ArrayList<>();

        String arg(int i, String name) {
            if (i >= positional.size()) throw new UsageError("missing argument <" + name + ">");
            return positional.get(i);
        }

        int intArg(int i, String name) {
            String s = arg(i, name);
            try {
                int v = Integer.parseInt(s);
                if (v < 0) throw new NumberFormatException();
                return v;
            } catch (NumberFormatException e) {
                throw new UsageError("<" + name + "> must be a non-negative integer, got " + s);
            }
        }
    }

    static final class UsageError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageError(String message) {
            super(message);
        }
    }

    private CuratorWorker() {}

    public static void main(String[] argv) {
        Options o;
        try {
            o = parse(argv);
        } catch (UsageError e) {
            System.err.println("CuratorWorker: " + e.getMessage());
            System.exit(2);
            return;
        }
        int code = 0;
        try {
            run(o);
        } catch (UsageError e) {
            System.err.println("CuratorWorker: " + e.getMessage());
            code = 2;
        } catch (Throwable t) {
            emit(line("type", "error", "worker", WORKER, "message", String.valueOf(t)));
            t.printStackTrace();
            code = 1;
        }
        // Curator and ZooKeeper leave non-daemon threads behind; do not wait for them.
        flushHeld();
        System.exit(code);
    }

    static Options parse(String[] argv) {
        Options o = new Options();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            switch (a) {
                case "--session-timeout-ms": o.sessionTimeoutMs = parseFlag(argv, ++i, a); break;
                case "--connection-timeout-ms": o.connectionTimeoutMs = parseFlag(argv, ++i, a); break;
                case "--warmup": o.warmup = parseFlag(argv, ++i, a); break;
                case "--retry":
                    if (i + 1 >= argv.length) throw new UsageError(a + " needs a value");
                    o.retry = argv[++i];
                    if (!o.retry.equals("exponential") && !o.retry.equals("one-time")) {
                        throw new UsageError("--retry must be exponential or one-time");
                    }
                    break;
                case "--start-at":
                    if (i + 1 >= argv.length) throw new UsageError(a + " needs a value");
                    o.startAtEpochMs = Long.parseLong(argv[++i]);
                    break;
                case "--wait-go": o.waitGo = true; break;
                default:
                    if (a.startsWith("--")) throw new UsageError("unknown flag " + a);
                    o.positional.add(a);
            }
        }
        if (o.positional.isEmpty()) throw new UsageError("missing <mode>");
        return o;
    }

    private static int parseFlag(String[] argv, int i, String flag) {
        if (i >= argv.length) throw new UsageError(flag + " needs a value");
        try {
            return Integer.parseInt(argv[i]);
        } catch (NumberFormatException e) {
            throw new UsageError(flag + " must be an integer");
        }
    }

    static void run(Options o) throws Exception {
        String mode = o.arg(0, "mode");
        if (mode.equals("clock")) {
            emit(line("type", "clock", "worker", WORKER, "nanoTime", Long.toString(System.nanoTime()),
                    "epochMs", System.currentTimeMillis()));
            return;
        }
        if (!List.of("mutex", "rw-read", "rw-write", "semaphore", "bench-uncontended", "many-waiters", "names",
                "mutex-revocable", "revoke", "leader-latch", "leader-selector", "participants",
                "win-mutex", "win-rw-read", "win-rw-write", "win-semaphore", "win-entities", "win-drain")
                .contains(mode)) {
            throw new UsageError("unknown mode " + mode);
        }
        try (CuratorFramework client = connect(o, o.arg(1, "connect"))) {
            switch (mode) {
                case "mutex": {
                    InterProcessMutex lock = new InterProcessMutex(client, o.arg(2, "lockPath"));
                    sectionLoop(o, "mutex", lock, o.intArg(3, "iterations"), o.intArg(4, "holdMs"));
                    break;
                }
                case "rw-read":
                case "rw-write": {
                    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, o.arg(2, "lockPath"));
                    boolean read = mode.equals("rw-read");
                    sectionLoop(o, read ? "read" : "write", read ? rw.readLock() : rw.writeLock(),
                            o.intArg(3, "iterations"), o.intArg(4, "holdMs"));
                    break;
                }
                case "semaphore":
                    semaphoreLoop(o, client);
                    break;
                case "bench-uncontended":
                    Bench.uncontended(o, client);
                    break;
                case "many-waiters":
                    Bench.manyWaiters(o, client);
                    break;
                case "names":
                    NodeNames.report(client, o.arg(2, "basePath"));
                    break;
                case "mutex-revocable":
                    revocableMutex(client, o.arg(2, "lockPath"));
                    break;
                case "leader-latch":
                    Election.latch(o, client);
                    break;
                case "leader-selector":
                    Election.selector(o, client);
                    break;
                case "participants":
                    Election.participants(o, client);
                    break;
                case "win-mutex":
                case "win-rw-read":
                case "win-rw-write":
                case "win-semaphore":
                case "win-entities":
                case "win-drain":
                    Windowed.run(mode, o, client);
                    break;
                case "revoke":
                    Revoker.attemptRevoke(client, o.arg(2, "nodePath"));
                    emit(line("type", "revoked", "worker", WORKER, "node", o.arg(2, "nodePath")));
                    break;
                default:
                    throw new UsageError("unknown mode " + mode);
            }
        }
    }

    static CuratorFramework connect(Options o, String connect) throws InterruptedException {
        RetryPolicy retry = o.retry.equals("one-time") ? new RetryOneTime(100) : new ExponentialBackoffRetry(100, 3);
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(o.sessionTimeoutMs)
                .connectionTimeoutMs(o.connectionTimeoutMs)
                .retryPolicy(retry)
                .build();
        // Tell the driving test about suspended / lost connections: they explain odd results.
        client.getConnectionStateListenable().addListener((c, state) ->
                emit(line("type", "event", "worker", WORKER, "state", state.toString(),
                        "nanoTime", Long.toString(System.nanoTime()))));
        client.start();
        if (!client.blockUntilConnected(o.connectionTimeoutMs, TimeUnit.MILLISECONDS)) {
            client.close();
            throw new IllegalStateException("could not connect to " + connect + " within " + o.connectionTimeoutMs + " ms");
        }
        return client;
    }

    /** Announces readiness, then waits for the common start signal if one was requested. */
    static void startGate(Options o) throws Exception {
        emit(line("type", "ready", "worker", WORKER, "nanoTime", Long.toString(System.nanoTime())));
        if (o.waitGo) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String l;
            while ((l = in.readLine()) != null && !l.trim().equals("go")) {
                // ignore anything else
            }
            if (l == null) throw new IllegalStateException("stdin closed before \"go\"");
        }
        if (o.startAtEpochMs > 0) {
            long wait = o.startAtEpochMs - System.currentTimeMillis();
            if (wait > 0) Thread.sleep(wait);
        }
    }

    private static void sectionLoop(Options o, String kind, InterProcessLock lock, int iterations, int holdMs)
            throws Exception {
        startGate(o);
        long began = System.nanoTime();
        long cpuBegan = processCpuNs();
        for (int i = 0; i < iterations; i++) {
            lock.acquire();
            long start = System.nanoTime();
            hold(holdMs);
            long end = System.nanoTime();
            lock.release();
            // Printed after the release so that writing output never lengthens the hold.
            emitSection(kind, i, start, end);
        }
        emitDone(iterations, began, cpuBegan);
    }

    private static void semaphoreLoop(Options o, CuratorFramework client) throws Exception {
        InterProcessSemaphoreV2 semaphore =
                new InterProcessSemaphoreV2(client, o.arg(2, "path"), o.intArg(3, "maxLeases"));
        int iterations = o.intArg(4, "iterations");
        int holdMs = o.intArg(5, "holdMs");
        startGate(o);
        long began = System.nanoTime();
        long cpuBegan = processCpuNs();
        for (int i = 0; i < iterations; i++) {
            Lease lease = semaphore.acquire();
            long start = System.nanoTime();
            hold(holdMs);
            long end = System.nanoTime();
            semaphore.returnLease(lease);
            emitSection("lease", i, start, end);
        }
        emitDone(iterations, began, cpuBegan);
    }

    /**
     * Curator's revocation protocol, holder side: the mutex is made revocable before it is acquired
     * (so a request written while we wait is seen too), prints {@code held} with our node's path
     * (what a revoker needs), and releases once asked. The listener runs on Curator's event thread,
     * which does not own the lock; it only wakes this thread, which does.
     */
    private static void revocableMutex(CuratorFramework client, String lockPath) throws Exception {
        InterProcessMutex lock = new InterProcessMutex(client, lockPath);
        CountDownLatch asked = new CountDownLatch(1);
        lock.makeRevocable(forLock -> {
            emit(line("type", "revoke-requested", "worker", WORKER, "nanoTime", Long.toString(System.nanoTime())));
            asked.countDown();
        });
        lock.acquire();
        emit(line("type", "held", "worker", WORKER, "node", ownNode(client, lock), "nanoTime", Long.toString(System.nanoTime())));
        asked.await();
        lock.release();
        emit(line("type", "released", "worker", WORKER, "nanoTime", Long.toString(System.nanoTime())));
    }

    /** Our node among the lock's participants: the one whose ephemeral owner is our session. */
    private static String ownNode(CuratorFramework client, InterProcessMutex lock) throws Exception {
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        for (String node : lock.getParticipantNodes()) {
            Stat stat = client.checkExists().forPath(node);
            if (stat != null && stat.getEphemeralOwner() == session) return node;
        }
        throw new IllegalStateException("no participant node of session 0x" + Long.toHexString(session));
    }

    private static void hold(int holdMs) throws InterruptedException {
        if (holdMs > 0) Thread.sleep(holdMs);
    }

    private static void emitSection(String kind, int i, long start, long end) {
        emit(line("type", "section", "worker", WORKER, "lock", kind, "i", i,
                "start", Long.toString(start), "end", Long.toString(end)));
    }

    private static void emitDone(int iterations, long began, long cpuBegan) {
        emit(line("type", "done", "done", true, "worker", WORKER, "iterations", iterations,
                "elapsedNs", Long.toString(System.nanoTime() - began),
                "cpuNs", Long.toString(processCpuNs() - cpuBegan)));
    }

    /**
     * CPU time this JVM has used so far, every thread (Curator's, ZooKeeper's, the JIT's and the
     * collector's): what the client costs the machine, as the benchmarks compare it with Node's
     * process.cpuUsage().
     */
    static long processCpuNs() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime()
                : -1;
    }

    /** Prints the lines kept back (ZKR_REPORT=at-end); every exit path calls it. */
    static synchronized void flushHeld() {
        System.out.print(HELD);
        HELD.setLength(0);
        System.out.flush();
    }

    /**
     * ZKR_REPORT=at-end: keep lines until the done line or the exit (ready and error lines go out
     * at once, after what was kept).
     */
    private static final boolean AT_END = "at-end".equals(System.getenv("ZKR_REPORT"));
    private static final StringBuilder HELD = new StringBuilder();

    static synchronized void emit(Map<String, Object> fields) {
        Object type = fields.get("type");
        if (AT_END && !"ready".equals(type) && !"error".equals(type)) {
            HELD.append(Json.write(fields)).append('\n');
            if (!"done".equals(type)) return;
            System.out.print(HELD);
            HELD.setLength(0);
        } else {
            System.out.print(HELD);
            HELD.setLength(0);
            System.out.println(Json.write(fields));
        }
        System.out.flush();
    }

    static Map<String, Object> line(Object... keyValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) m.put((String) keyValues[i], keyValues[i + 1]);
        return m;
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) return 0;
        int idx = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }

    static long[] sortedCopy(long[] a) {
        long[] s = a.clone();
        Arrays.sort(s);
        return s;
    }
}
