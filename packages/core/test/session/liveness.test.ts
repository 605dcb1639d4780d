/**
 * The liveness rules as pure logic: when a connection is dropped, when we ping, and when the
 * session is declared lost (the send time of the last answered request plus the session timeout,
 * less the margin), and how replies are matched to send times.
 */
import { describe, expect, it } from 'vitest';
import {
  judge,
  lostDeadline,
  lostMarginMs,
  nextCheckInMs,
  pingIntervalMs,
  relayedWithinMs,
  readTimeoutMs,
  replyGraceMs,
  type WatchdogInput,
} from '../../src/session/livenessWatchdog.js';
import { SendLog, WireClock } from '../../src/session/wireClock.js';

describe('the lost margin and deadline', () => {
  it('is a tenth of the session timeout, at least 100 ms', () => {
    expect(lostMarginMs(400)).toBe(100);
    expect(lostMarginMs(1000)).toBe(100);
    expect(lostMarginMs(2000)).toBe(200);
    expect(lostMarginMs(6000)).toBe(600);
    expect(lostMarginMs(20_000)).toBe(2000);
    expect(lostMarginMs(40_001)).toBe(4001); // rounded up, never down
  });
  it('runs from the send time of the last answered request', () => {
    expect(lostDeadline(5000, 2000)).toBe(6800);
    expect(lostDeadline(5000, 6000)).toBe(10_400);
    expect(lostDeadline(5000, 20_000)).toBe(23_000);
    expect(lostDeadline(-Infinity, 6000)).toBe(-Infinity);
  });
  it('comes after the read timeout, leaving time to reach another server', () => {
    for (const t of [400, 2000, 4000, 6000, 20_000, 40_000]) {
      expect(readTimeoutMs(t)).toBeLessThan(t - lostMarginMs(t));
      expect(pingIntervalMs(t)).toBeLessThan(readTimeoutMs(t));
    }
  });
});

describe('judge', () => {
  const T = 3000;
  const base: WatchdogInput = {
    now: 10_000,
    phase: 'connected',
    phaseSince: 0,
    lastReceivedAt: 10_000,
    lastSentAt: 10_000,
    lastAnsweredSentAt: 10_000,
    oldestUnansweredSentAt: Infinity,
    lastRepliedAt: 10_000,
    established: true,
    sessionTimeoutMs: T,
    connectTimeoutMs: 1000,
  };

  it('declares lost at lastAnsweredSentAt + timeout - margin, whatever bytes arrive meanwhile', () => {
    const deadline = lostDeadline(7000, T); // 9700
    expect(judge({ ...base, lastAnsweredSentAt: 7000, now: deadline - 1 })).not.toBe('lost');
    expect(judge({ ...base, lastAnsweredSentAt: 7000, now: deadline })).toBe('lost');
    // Watch events and late replies keep bytes flowing: still lost.
    expect(judge({ ...base, lastAnsweredSentAt: 7000, now: deadline, lastReceivedAt: deadline })).toBe('lost');
    for (const phase of ['connecting', 'other'] as const) {
      expect(judge({ ...base, phase, lastAnsweredSentAt: 7000, now: deadline })).toBe('lost');
    }
  });

  it('never declares lost for a generation that had no session yet', () => {
    expect(judge({ ...base, phase: 'other', established: false, lastAnsweredSentAt: -Infinity })).toBe('ok');
  });

  it('drops a silent connection at 2/3 of the session timeout', () => {
    expect(readTimeoutMs(T)).toBe(2000);
    expect(judge({ ...base, lastReceivedAt: 10_000 - 1999 })).toBe('ok');
    expect(judge({ ...base, lastReceivedAt: 10_000 - 2000 })).toBe('destroySocket');
  });

  it('drops a connection whose server answers nothing for 2/3 of the timeout although its bytes arrive', () => {
    const oneWay = { ...base, lastAnsweredSentAt: 7900, lastRepliedAt: 10_000 - 2000, lastSentAt: 9900 };
    expect(judge({ ...oneWay, oldestUnansweredSentAt: 10_000 - replyGraceMs(T) })).toBe('destroySocket');
    expect(judge({ ...oneWay, oldestUnansweredSentAt: 10_000 - replyGraceMs(T) + 1 })).toBe('ok');
    expect(judge({ ...oneWay, lastRepliedAt: 10_000 - 1999, oldestUnansweredSentAt: 8000 })).toBe('ok');
  });

  it('does not drop a connection whose replies keep coming, however old their requests', () => {
    // A long pipeline being worked off: answered requests were all sent long ago.
    expect(judge({ ...base, lastAnsweredSentAt: 7500, oldestUnansweredSentAt: 7500, lastRepliedAt: 9990 })).toBe('ok');
  });

  it('does not drop a connection after a stall of ours in which nothing was sent', () => {
    // Nothing unanswered, or only a ping sent right after the stall: the server had nothing to answer.
    const afterStall = { ...base, lastAnsweredSentAt: 10_000 - 2500, lastRepliedAt: 10_000 - 2500, lastSentAt: 10_000 };
    expect(judge({ ...afterStall, oldestUnansweredSentAt: Infinity })).toBe('ok');
    expect(judge({ ...afterStall, oldestUnansweredSentAt: 9990 })).toBe('ok');
  });

  it('pings when nothing was written for 1/3 of the timeout, even while bytes arrive', () => {
    expect(pingIntervalMs(T)).toBe(1000);
    expect(judge({ ...base, lastSentAt: 9001 })).toBe('ok');
    expect(judge({ ...base, lastSentAt: 9000 })).toBe('ping');
    expect(judge({ ...base, phase: 'other', lastSentAt: 0 })).toBe('ok');
  });

  it('drops a connection whose connect response does not come within the connect timeout', () => {
    expect(judge({ ...base, phase: 'connecting', phaseSince: 9_500 })).toBe('ok');
    expect(judge({ ...base, phase: 'connecting', phaseSince: 9_000 })).toBe('destroySocket');
  });

  it('wakes exactly at the lost deadline when it comes before the next poll', () => {
    expect(nextCheckInMs({ ...base, lastAnsweredSentAt: 10_000 })).toBe(150); // T/20
    expect(nextCheckInMs({ ...base, lastAnsweredSentAt: 10_010 - T + lostMarginMs(T) })).toBe(10);
    expect(nextCheckInMs({ ...base, lastAnsweredSentAt: 0 })).toBe(1);
    expect(nextCheckInMs({ ...base, established: false, lastAnsweredSentAt: -Infinity })).toBe(150);
  });
});

describe('SendLog', () => {
  it('matches a reply to the oldest frame with its xid and forgets every frame sent before it', () => {
    const log = new SendLog();
    log.record(7, 100);
    log.record(-2, 110); // ping
    log.record(8, 120);
    log.record(-2, 130); // ping
    expect(log.oldestAt).toBe(100);
    expect(log.answered(7)).toBe(100);
    expect(log.answered(-2)).toBe(110); // the oldest ping
    expect(log.size).toBe(2);
    expect(log.answered(-2)).toBe(130); // implies 8 was read too
    expect(log.size).toBe(0);
    expect(log.oldestAt).toBe(Infinity);
  });
  it('ignores a reply it cannot match', () => {
    const log = new SendLog();
    log.record(1, 10);
    expect(log.answered(99)).toBeUndefined();
    expect(log.size).toBe(1);
  });
  it('stays compact under a long pipeline', () => {
    const log = new SendLog();
    for (let i = 0; i < 5000; i++) log.record(i, i);
    for (let i = 0; i < 4999; i++) expect(log.answered(i)).toBe(i);
    expect(log.size).toBe(1);
    expect(log.oldestAt).toBe(4999);
  });
});

describe('WireClock', () => {
  const socket = {} as never;
  it('runs from the connect request, then from each answered frame; auth replies count for nothing', () => {
    const clock = new WireClock(0, 6000);
    expect(clock.deadline).toBe(-Infinity);
    clock.socketConnected(socket, 100);
    clock.connectAnswered(4000, 150); // the server granted 4000
    expect(clock.lastAnsweredSentAt).toBe(100);
    expect(clock.deadline).toBe(lostDeadline(100, 4000));
    clock.sent(-4, 200); // auth: not logged
    clock.sent(0, 300);
    clock.sent(-2, 400);
    expect(clock.lastSentAt).toBe(400);
    expect(clock.oldestUnansweredSentAt).toBe(300);
    clock.replied(-4, 450);
    expect(clock.lastAnsweredSentAt).toBe(100);
    expect(clock.lastRepliedAt).toBe(150);
    clock.replied(-2, 460);
    expect(clock.lastAnsweredSentAt).toBe(400);
    expect(clock.lastRepliedAt).toBe(460);
    expect(clock.deadline).toBe(lostDeadline(400, 4000));
    expect(clock.oldestUnansweredSentAt).toBe(Infinity);
  });
  it('an answer to a request sent after a gap the leader may not have heard of in time does not move the deadline', () => {
    // 6 s session: a follower relays our activity within 1.5 s; the margin is 0.6 s: 3.9 s.
    expect(relayedWithinMs(6000)).toBe(3900);
    const clock = new WireClock(0, 6000);
    clock.socketConnected(socket, 0);
    clock.connectAnswered(6000, 10);
    clock.sent(0, 3900); // the gap is exactly the bound: counts
    clock.replied(0, 3910);
    expect(clock.lastAnsweredSentAt).toBe(3900);
    clock.sent(-2, 7801); // a stall of ours: 3901 ms since the last answered send
    clock.replied(-2, 7810);
    expect(clock.lastAnsweredSentAt).toBe(3900);
    expect(clock.deadline).toBe(lostDeadline(3900, 6000));
    // A new connect response is the leader's own word: it counts whatever the gap.
    const next = {} as never;
    clock.socketConnected(next, 8000);
    clock.connectAnswered(6000, 8010);
    expect(clock.lastAnsweredSentAt).toBe(8000);
  });

  it('forgets the frames of a previous socket and never moves backwards', () => {
    const clock = new WireClock(0, 2000);
    clock.socketConnected(socket, 10);
    clock.connectAnswered(2000, 20);
    clock.sent(0, 500);
    const next = {} as never;
    clock.socketConnected(next, 600);
    expect(clock.isCurrent(next)).toBe(true);
    expect(clock.isCurrent(socket)).toBe(false);
    clock.replied(0, 610); // not logged on this socket
    expect(clock.lastAnsweredSentAt).toBe(10);
    clock.connectAnswered(2000, 620);
    expect(clock.lastAnsweredSentAt).toBe(600);
  });
});
