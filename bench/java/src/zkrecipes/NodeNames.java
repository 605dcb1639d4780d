package zkrecipes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import java.util.concurrent.CountDownLatch;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reports the znodes Curator's lock and leader recipes create, while they exist, so that our recipes can write
 * the same names. One {@code {"type":"names", ...}} line per snapshot, with every child's name,
 * data, ephemeral owner and czxid. (Curator creates the directories as containers, which the server
 * deletes once they have been empty for a while; a client's Stat does not show that mode.)
 */
final class NodeNames {
    private NodeNames() {}

    static void report(CuratorFramework client, String base) throws Exception {
        String sessionId = "0x" + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId());

        // InterProcessMutex: nodes straight under the lock path.
        String mutexPath = base + "/mutex";
        InterProcessMutex mutex = new InterProcessMutex(client, mutexPath);
        mutex.acquire();
        snapshot(client, "InterProcessMutex", "held", mutexPath, sessionId);
        mutex.release();
        snapshot(client, "InterProcessMutex", "released", mutexPath, sessionId);

        // InterProcessReadWriteLock: a write holder may also take the read lock, so both kinds of
        // node exist at once under the one path.
        String rwPath = base + "/rw";
        InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, rwPath);
        rw.writeLock().acquire();
        rw.readLock().acquire();
        snapshot(client, "InterProcessReadWriteLock", "write+read held", rwPath, sessionId);
        rw.readLock().release();
        rw.writeLock().release();

        // InterProcessSemaphoreV2: a mutex under <path>/locks guards each acquire; leases live under
        // <path>/leases. Holding that mutex ourselves makes the semaphore's lock node observable.
        String semPath = base + "/sem";
        InterProcessMutex guard = new InterProcessMutex(client, semPath + "/locks");
        guard.acquire();
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, semPath, 2);
        Lease[] lease = new Lease[1];
        Throwable[] failure = new Throwable[1];
        Thread acquirer = new Thread(() -> {
            try {
                lease[0] = semaphore.acquire();
            } catch (Throwable t) {
                failure[0] = t;
            }
        });
        acquirer.start();
        while (client.getChildren().forPath(semPath + "/locks").size() < 2) Thread.sleep(5);
        snapshot(client, "InterProcessSemaphoreV2", "acquire waiting for <path>/locks", semPath + "/locks", sessionId);
        guard.release();
        acquirer.join();
        if (failure[0] != null) throw new IllegalStateException("semaphore acquire failed", failure[0]);
        snapshot(client, "InterProcessSemaphoreV2", "lease held", semPath, sessionId);
        snapshot(client, "InterProcessSemaphoreV2", "lease held", semPath + "/leases", sessionId);
        snapshot(client, "InterProcessSemaphoreV2", "lease held", semPath + "/locks", sessionId);
        semaphore.returnLease(lease[0]);
        snapshot(client, "InterProcessSemaphoreV2", "lease returned", semPath + "/leases", sessionId);

        // LeaderLatch: protected latch- nodes straight under the path, the id as data.
        String latchPath = base + "/latch";
        LeaderLatch latch = new LeaderLatch(client, latchPath, "curator-latch");
        latch.start();
        latch.await();
        snapshot(client, "LeaderLatch", "leading", latchPath, sessionId);
        latch.close();

        // LeaderSelector: an InterProcessMutex queue (lock- nodes), the id as data.
        String selectorPath = base + "/selector";
        CountDownLatch done = new CountDownLatch(1);
        Throwable[] selectorFailure = new Throwable[1];
        LeaderSelector selector = new LeaderSelector(client, selectorPath, new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework c) {
                try {
                    snapshot(c, "LeaderSelector", "leading", selectorPath, sessionId);
                } catch (Throwable t) {
                    selectorFailure[0] = t;
                } finally {
                    done.countDown();
                }
            }
        });
        selector.setId("curator-selector");
        selector.start();
        done.await();
        selector.close();
        if (selectorFailure[0] != null) throw new IllegalStateException("selector snapshot failed", selectorFailure[0]);

        CuratorWorker.emit(CuratorWorker.line("type", "done", "done", true, "worker", CuratorWorker.WORKER));
    }

    private static void snapshot(CuratorFramework client, String recipe, String moment, String path, String sessionId)
            throws Exception {
        Stat dirStat = client.checkExists().forPath(path);
        List<String> names;
        try {
            names = new ArrayList<>(client.getChildren().forPath(path));
        } catch (KeeperException.NoNodeException e) {
            // The directories are containers: the server may delete one as soon as it is empty.
            names = new ArrayList<>();
        }
        Collections.sort(names);
        List<Object> children = new ArrayList<>();
        for (String name : names) {
            Stat stat = new Stat();
            byte[] data = client.getData().storingStatIn(stat).forPath(path + "/" + name);
            Map<String, Object> child = CuratorWorker.line(
                    "name", name,
                    "data", data == null ? null : new String(data, StandardCharsets.UTF_8),
                    "ephemeralOwner", "0x" + Long.toHexString(stat.getEphemeralOwner()),
                    "czxid", Long.toString(stat.getCzxid()));
            children.add(child);
        }
        CuratorWorker.emit(CuratorWorker.line(
                "type", "names", "recipe", recipe, "moment", moment, "path", path, "sessionId", sessionId,
                "dirCzxid", dirStat == null ? null : Long.toString(dirStat.getCzxid()),
                "children", children));
    }
}
