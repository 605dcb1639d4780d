package zkrecipes;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;

/**
 * Curator's leader elections, for the interop tests and the benchmark. Each term of leadership is
 * printed as a {@code leader} line when it begins and a {@code section} line when it ends (the
 * earlier of Curator telling us it ended and our giving it up), times on {@code System.nanoTime()}
 * (CLOCK_MONOTONIC, comparable with Node's {@code process.hrtime.bigint()}).
 *
 * <p>Commands on stdin, one per line: {@code resign} (give leadership up and join again: a latch
 * closes and a new one starts; a selector's term returns), {@code close} (leave the election and
 * end the mode), {@code stop} (the same). EOF counts as {@code stop}.
 */
final class Election {
    private Election() {}

    /** Numbers a participant's terms in the order they begin. */
    private static final class Terms {
        private int next = 0;

        synchronized int take() {
            return next++;
        }
    }

    /**
     * One term of leadership: begun at most once, by whichever sees the leadership first (Curator's
     * callback or our own poll), and ended once, by whichever comes first (Curator telling us it
     * ended, or our giving it up). A begin after the end starts nothing: a callback that comes late,
     * on Curator's thread, cannot open a term that nobody would end (one term per latch or
     * {@code takeLeadership} call, so a late callback cannot touch the next one either).
     */
    private static final class Term {
        private final Terms terms;
        private long start = -1;
        private boolean over = false;
        private int id = -1;
        private String node = "";

        Term(Terms terms) {
            this.terms = terms;
        }

        synchronized void begin(String ourNode) {
            if (start >= 0 || over) return;
            start = System.nanoTime();
            id = terms.take();
            node = ourNode;
            CuratorWorker.emit(CuratorWorker.line("type", "leader", "worker", CuratorWorker.WORKER, "id", id,
                    "t", Long.toString(start), "node", node));
        }

        synchronized void end(String why) {
            if (over) return;
            over = true;
            if (start < 0) return;
            long end = System.nanoTime();
            CuratorWorker.emit(CuratorWorker.line("type", "section", "worker", CuratorWorker.WORKER, "lock", "leader",
                    "id", id, "start", Long.toString(start), "end", Long.toString(end), "node", node, "why", why));
        }
    }

    /** Commands read from stdin by a daemon thread. */
    private static LinkedBlockingQueue<String> commands() {
        LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String l;
                while ((l = in.readLine()) != null) queue.add(l.trim());
            } catch (Exception e) {
                // stdin gone: stop
            }
            queue.add("stop");
        }, "commands");
        reader.setDaemon(true);
        reader.start();
        return queue;
    }

    /**
     * {@code leader-latch connect path id holdMs}: joins with a LeaderLatch; a leader resigns after
     * holdMs (0: only when told) by closing its latch, and a new latch joins at once.
     */
    static void latch(CuratorWorker.Options o, CuratorFramework client) throws Exception {
        String path = o.arg(2, "path");
        String id = o.arg(3, "id");
        int holdMs = o.intArg(4, "holdMs");
        LinkedBlockingQueue<String> commands = commands();
        Terms terms = new Terms();
        CuratorWorker.emit(CuratorWorker.line("type", "ready", "worker", CuratorWorker.WORKER, "nanoTime", Long.toString(System.nanoTime())));
        boolean stop = false;
        while (!stop) {
            LeaderLatch latch = new LeaderLatch(client, path, id);
            Term term = new Term(terms);
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    term.begin(String.valueOf(latch.getOurPath()));
                }

                @Override
                public void notLeader() {
                    term.end("notLeader");
                }
            });
            latch.start();
            // Wait for leadership (or a command), then hold. hasLeadership() may turn true before
            // Curator calls isLeader(): the term begins at whichever comes first.
            String command = null;
            while (command == null && !latch.hasLeadership()) command = commands.poll(5, TimeUnit.MILLISECONDS);
            if (command == null) {
                term.begin(String.valueOf(latch.getOurPath()));
                command = holdMs > 0 ? commands.poll(holdMs, TimeUnit.MILLISECONDS) : commands.take();
            }
            term.end(command == null ? "resigned" : command);
            latch.close();
            stop = command != null && (command.equals("close") || command.equals("stop"));
        }
        CuratorWorker.emit(CuratorWorker.line("type", "done", "done", true, "worker", CuratorWorker.WORKER));
    }

    /**
     * {@code leader-selector connect path id holdMs}: a LeaderSelector with autoRequeue whose term
     * lasts holdMs (0: until told); a lost connection interrupts it (Curator's adapter).
     */
    static void selector(CuratorWorker.Options o, CuratorFramework client) throws Exception {
        String path = o.arg(2, "path");
        String id = o.arg(3, "id");
        int holdMs = o.intArg(4, "holdMs");
        LinkedBlockingQueue<String> commands = commands();
        LinkedBlockingQueue<String> toLeader = new LinkedBlockingQueue<>();
        Terms terms = new Terms();
        AtomicReference<Term> current = new AtomicReference<>();
        LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework c) throws Exception {
                Term term = new Term(terms);
                current.set(term);
                term.begin("");
                String why = "returned";
                try {
                    String command = holdMs > 0 ? toLeader.poll(holdMs, TimeUnit.MILLISECONDS) : toLeader.take();
                    if (command != null) why = command;
                } catch (InterruptedException e) {
                    why = "interrupted";
                    throw e;
                } finally {
                    term.end(why);
                }
            }
        });
        selector.setId(id);
        selector.autoRequeue();
        CuratorWorker.emit(CuratorWorker.line("type", "ready", "worker", CuratorWorker.WORKER, "nanoTime", Long.toString(System.nanoTime())));
        selector.start();
        for (;;) {
            String command = commands.take();
            if (command.equals("resign")) {
                toLeader.add(command);
            } else if (command.equals("close") || command.equals("stop")) {
                Term term = current.get();
                if (term != null) term.end(command);
                selector.close();
                break;
            }
        }
        CuratorWorker.emit(CuratorWorker.line("type", "done", "done", true, "worker", CuratorWorker.WORKER));
    }

    /** {@code participants connect path latch|selector}: what Curator reports of an election. */
    static void participants(CuratorWorker.Options o, CuratorFramework client) throws Exception {
        String path = o.arg(2, "path");
        boolean latch = o.arg(3, "latch|selector").equals("latch");
        List<Object> list = new ArrayList<>();
        Participant leader;
        if (latch) {
            LeaderLatch reader = new LeaderLatch(client, path);
            for (Participant p : reader.getParticipants()) list.add(participant(p));
            leader = reader.getLeader();
        } else {
            LeaderSelector reader = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework c) {}
            });
            for (Participant p : reader.getParticipants()) list.add(participant(p));
            leader = reader.getLeader();
        }
        CuratorWorker.emit(CuratorWorker.line("type", "participants", "worker", CuratorWorker.WORKER, "participants", list,
                "leader", leader.getId(), "leaderIsLeader", leader.isLeader()));
    }

    private static Map<String, Object> participant(Participant p) {
        return CuratorWorker.line("id", p.getId(), "isLeader", p.isLeader());
    }
}
