/**
 * A pure model of the lock-queue engine (docs/architecture.md, "The lock-queue engine") for the
 * hints property tests: no server, one true queue of child names, and contenders that act on it
 * as `Contender`, `ObstacleWait` and `AnyOfWait` do, flag by flag. The same random script of queue
 * events (arrivals, leavings of holders and waiters, downgrades) is played twice: once with the
 * rules' hints, once with `withoutHints` (every wake lists again; a wait for any of several nodes
 * is then a wait for the children, as `decideWithHints` makes it). Each contender step (a reply or
 * an event handled) is atomic; listings may be decided on after later events, and events may come
 * before the contenders are done (`races`). Whenever every contender is done:
 * - every grant either run made was one the pure `decide` on the TRUE queue also made then
 *   (checked at each grant);
 * - both runs have exactly the holders `decide` on the true queue names (so the same grants,
 *   after the same events; holders at once, not eventually);
 * - at the end (every holder released in turn, so each acquisition is paid in full), the hinted
 *   run waited for no more listings than the run without hints: per case without races, over all
 *   cases with them (the two runs' schedules then differ). A listing the engine makes while it
 *   still waits (`watchAhead`: the node ahead of the one it waits for went) is counted apart: it
 *   is off the critical path, and it is what lets a later wake grant without one.
 *
 * Waits for a node's deletion are deletion-only (a child watch), as the engine's are. A wait for
 * any of several nodes that ends in a grant leaves its watches (they fire unheard), and one that
 * names a node it does not watch lists again while it goes on. Replies come in order with the
 * events (each contender's notes are handled in the order they were sent), as one session's do.
 *
 * Not modelled: a request in flight while its own reply is reordered (a watch set and its reply are
 * one step, so `ObstacleWait`'s wait for a creation watch's reply is not exercised), connection and
 * session loss (replayed watches, `onSuspended`), the recheck of outside changes, `maxLeases`
 * changing, data written by others (revocation, operators: deletion-only watches ignore them), the
 * listing shared by a session's waiters, and the engine's guards on our own node.
 */
import { decideWithHints, withoutHints, type HintedDecision, type OrderingRule } from '../../src/engine/OrderingRule.js';
import { sortedChildren, type QueueEntry } from '../../src/nodes/index.js';

/** What a recipe tells the model. */
export interface ModelRecipe {
  /** A new node's name for sequence `sequence` (the GUID is made unique by `guid`). */
  arrival(random: () => number, guid: string, sequence: number): string;
  /** The rule a node of this name acquires with. */
  ruleOf(name: string): OrderingRule;
  /** The name a downgrade of this holding node would create, or null if it cannot downgrade. */
  downgradeOf?(name: string): string | null;
}

export interface ModelOptions {
  events: number;
  /** Replaces every rule's hints in the hinted run (to show the checker catches a wrong hint). */
  hinted?: (rule: OrderingRule) => OrderingRule;
  /**
   * Replies race events: a contender may decide on a listing after later events (`staleRate` of
   * its listings), and the next event may come before the contenders are done. Their schedules
   * then differ between the runs, so the listings are compared over all cases, not per case.
   */
  races?: boolean;
  staleRate?: number;
  /** Stop at the first failing case. */
  firstFailure?: boolean;
}

export interface CaseResult {
  failure?: string;
  listings: { hinted: number; bare: number };
  /** Listings the hinted run made while it still waited (`watchAhead`; the bare run makes none). */
  aheadListings: number;
  grants: number;
  shortcutGrants: number;
}

/** mulberry32: a small seeded PRNG, so a failing case is replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A protected-name GUID (`_c_<uuid>-`) made from a number. */
export function guidOf(n: number): string {
  const g = n.toString(16).padStart(8, '0');
  return `${g}-${g.slice(0, 4)}-4${g.slice(0, 3)}-8${g.slice(0, 3)}-${g}${g.slice(0, 4)}`;
}

type Note =
  | { kind: 'list' }
  | { kind: 'reply'; queue: QueueEntry[] }
  | { kind: 'deleted'; name: string; wait: number }
  | { kind: 'created'; name: string; wait: number }
  | { kind: 'relisted'; queue: QueueEntry[]; wait: number }
  | { kind: 'children'; wait: number }
  | { kind: 'aheadReply'; queue: QueueEntry[]; wait: number; name: string };

type NodeWait = {
  type: 'node';
  id: number;
  decision: Extract<HintedDecision, { waitFor: string }>;
  predecessorLocal: boolean;
  /** The `watchAhead` node watched, if any. */
  ahead: string | undefined;
  /** The listing made when it went: not decided on yet; once the wait ended, decided on as fresh. */
  aheadListing: 'none' | 'pending' | 'decide-when-answered';
};

type Wait =
  | NodeWait
  | { type: 'anyOf'; id: number; queue: QueueEntry[]; watching: Set<string>; creations: Set<string>; relisting: boolean }
  | { type: 'children'; id: number };

interface ContenderModel {
  name: string;
  process: number;
  rule: OrderingRule;
  truth: OrderingRule;
  state: 'waiting' | 'held' | 'gone';
  inbox: Note[];
  wait: Wait | undefined;
  behindWaitedFor: QueueEntry[] | undefined;
}

interface NodeModel {
  process: number;
  /** Granted in this run (the engine's `LocalSeatState.held`, seen by waiters of its process). */
  held: boolean;
  keepsPlace: boolean;
  contender: ContenderModel | undefined;
}

type Watchers = Map<string, Set<{ c: ContenderModel; wait: number }>>;

class Violation extends Error {}

/** One run of the script's events against one set of rules. */
class RunModel {
  readonly nodes = new Map<string, NodeModel>();
  readonly grants: string[] = [];
  /** Listings a contender waited for before deciding. */
  listings = 0;
  /** Listings made while still waiting (`watchAhead`). */
  aheadListings = 0;
  shortcutGrants = 0;
  /** Deletion-only watches (a child watch on the node): only its deletion fires them. */
  private readonly deletions: Watchers = new Map();
  private readonly exists: Watchers = new Map();
  private children = new Set<{ c: ContenderModel; wait: number }>();
  private nextWait = 1;

  constructor(
    private readonly recipe: ModelRecipe,
    private readonly ruleFor: (truth: OrderingRule) => OrderingRule,
    private readonly random: () => number,
    private readonly staleRate: number,
  ) {}

  private sorted: QueueEntry[] | undefined;

  /** The queue as a listing now would show it (cached until a node comes or goes). */
  trueQueue(): QueueEntry[] {
    return (this.sorted ??= sortedChildren([...this.nodes.keys()]));
  }

  arrive(name: string, process: number): void {
    const truth = this.recipe.ruleOf(name);
    const c: ContenderModel = {
      name,
      process,
      rule: this.ruleFor(truth),
      truth,
      state: 'waiting',
      inbox: [{ kind: 'list' }],
      wait: undefined,
      behindWaitedFor: undefined,
    };
    this.create(name, { process, held: false, keepsPlace: false, contender: c });
  }

  /** A downgrade: the read node appears at the holder's place (held at once), which keeps it. */
  downgrade(holder: string, readName: string): void {
    const node = this.nodes.get(holder)!;
    node.keepsPlace = true;
    this.create(readName, { process: node.process, held: true, keepsPlace: false, contender: undefined });
    this.grants.push(readName);
  }

  leave(name: string): void {
    const node = this.nodes.get(name)!;
    if (node.contender !== undefined) {
      node.contender.state = 'gone';
      node.contender.inbox = [];
    }
    this.nodes.delete(name);
    this.sorted = undefined;
    this.fire(this.deletions, name, (wait) => ({ kind: 'deleted', name, wait }));
    this.fireChildren();
  }

  /** Runs the contenders' pending work, one note at a time in a random order, until none is left or after `limit` steps. */
  settle(limit = 100_000): void {
    for (let steps = 0; steps < limit; steps++) {
      const busy: ContenderModel[] = [];
      for (const node of this.nodes.values()) if (node.contender !== undefined && node.contender.inbox.length > 0) busy.push(node.contender);
      if (busy.length === 0) return;
      const c = busy[Math.floor(this.random() * busy.length)]!;
      this.step(c, c.inbox.shift()!);
    }
    if (limit === 100_000) throw new Violation('no quiescence: a contender loops');
  }

  holders(): string[] {
    const names: string[] = [];
    for (const [name, node] of this.nodes) if (node.contender === undefined || node.contender.state === 'held') names.push(name);
    return names.sort();
  }

  private create(name: string, node: NodeModel): void {
    this.nodes.set(name, node);
    this.sorted = undefined;
    this.fire(this.exists, name, (wait) => ({ kind: 'created', name, wait }));
    this.fireChildren();
  }

  private fire(watchers: Watchers, name: string, note: (wait: number) => Note): void {
    const set = watchers.get(name);
    watchers.delete(name);
    for (const { c, wait } of set ?? []) if (c.state === 'waiting') c.inbox.push(note(wait));
  }

  private fireChildren(): void {
    const set = this.children;
    this.children = new Set();
    for (const { c, wait } of set) if (c.state === 'waiting') c.inbox.push({ kind: 'children', wait });
  }

  private watch(watchers: Watchers, name: string, c: ContenderModel, wait: number): void {
    let set = watchers.get(name);
    if (set === undefined) watchers.set(name, (set = new Set()));
    set.add({ c, wait });
  }

  private isLocal(c: ContenderModel, name: string): boolean {
    return this.nodes.get(name)?.process === c.process;
  }

  private step(c: ContenderModel, note: Note): void {
    if (c.state !== 'waiting') return;
    if (note.kind === 'list') return this.list(c, 'first');
    if (note.kind === 'reply') return this.decideOn(c, note.queue, true);
    const wait = c.wait;
    if (wait === undefined || wait.id !== note.wait) return; // a wait that has ended
    if (wait.type === 'children') return this.list(c, 'children changed');
    if (wait.type === 'anyOf') {
      if (note.kind === 'created') return this.list(c, 'created ahead (any-of)');
      if (note.kind === 'relisted') {
        // `Contender.relistKeepingWatches`: decided on as fresh, the watches kept.
        wait.relisting = false;
        return this.decideOn(c, note.queue, true);
      }
      if (note.kind !== 'deleted') return;
      wait.watching.delete(note.name);
      wait.queue = wait.queue.filter((entry) => entry.name !== note.name);
      if (wait.relisting) return; // the listing on its way was served after this departure
      return this.decideOn(c, wait.queue, false);
    }
    // ObstacleWait
    if (note.kind === 'created') return this.list(c, 'created ahead');
    if (note.kind === 'aheadReply') {
      if (note.name !== wait.ahead || wait.aheadListing === 'none') return; // a listing superseded
      const decideWhenAnswered = wait.aheadListing === 'decide-when-answered';
      wait.aheadListing = 'none';
      if (decideWhenAnswered) {
        c.wait = undefined;
        return this.decideOn(c, note.queue, true);
      }
      return this.decideOn(c, note.queue, true);
    }
    if (note.kind !== 'deleted') return;
    if (note.name === wait.decision.waitFor) return this.goneWaitedFor(c, wait);
    if (note.name === wait.ahead) return this.aheadGone(c, wait);
  }

  /** `ObstacleWait.aheadGone`: the node ahead went; list (now, or answered in a later step). */
  private aheadGone(c: ContenderModel, wait: NodeWait): void {
    this.aheadListings++;
    const queue = this.trueQueue();
    if (this.random() < this.staleRate) {
      wait.aheadListing = 'pending';
      c.inbox.push({ kind: 'aheadReply', queue, wait: wait.id, name: wait.ahead! });
    } else {
      this.decideOn(c, queue, true);
    }
  }

  /** `ObstacleWait.settled('gone')` and what `Contender.waited` does with it. */
  private goneWaitedFor(c: ContenderModel, wait: NodeWait): void {
    const decision = wait.decision;
    const predecessor = this.goneStates.get(decision.waitFor);
    const wentAsHolder = wait.predecessorLocal && predecessor !== undefined && predecessor.held && !predecessor.keepsPlace;
    if (decision.lastObstacle || (wentAsHolder && decision.lastObstacleIfHeld === true)) {
      c.wait = undefined;
      this.hold(c, false);
      return;
    }
    if (wentAsHolder && decision.decideBehindIfHeld === true) {
      c.wait = undefined;
      return this.decideOn(c, c.behindWaitedFor!, false);
    }
    if (wait.aheadListing === 'pending') {
      // Its answer comes after this deletion: decided on as the fresh listing (the wait is over).
      this.count('the listing made when the node ahead went');
      this.aheadListings--;
      wait.aheadListing = 'decide-when-answered';
      return;
    }
    this.list(c, 'waited-for node went');
  }

  /** The last state of nodes that went, for a local waiter's `leavesAsHolder`. */
  readonly goneStates = new Map<string, NodeModel>();

  /** Why each listing was made (to read a failing case). */
  readonly listingsBy = new Map<string, number>();

  private count(why: string): void {
    this.listings++;
    this.listingsBy.set(why, (this.listingsBy.get(why) ?? 0) + 1);
  }

  /**
   * Lists the queue as it is now, and decides on it now or, at `staleRate`, in a later step: the
   * queue may have changed by then (the reply races the events behind it).
   */
  private list(c: ContenderModel, why: string): void {
    this.count(why);
    c.wait = undefined;
    if (this.random() < this.staleRate) c.inbox.push({ kind: 'reply', queue: this.trueQueue() });
    else this.decideOn(c, this.trueQueue(), true);
  }

  private decideOn(c: ContenderModel, queue: readonly QueueEntry[], fresh: boolean, armedChildren = false): void {
    const ownIndex = queue.findIndex((entry) => entry.name === c.name);
    const decision = decideWithHints(c.rule, queue, ownIndex);
    const current = c.wait;
    const appears = 'waitForAnyOf' in decision ? (decision.relistIfCreated ?? []) : [];
    if ('waitForAnyOf' in decision && current?.type === 'anyOf' && appears.every((name) => current.creations.has(name))) {
      if (fresh) {
        // `AnyOfWait.add`: wait on the fresh listing, watching what it names besides.
        current.queue = [...queue];
        for (const name of decision.waitForAnyOf) if (!current.watching.has(name)) this.watchAnyOf(c, current, name);
        return;
      }
      if (decision.waitForAnyOf.every((name) => current.watching.has(name))) return;
      // It names a node not watched, maybe gone unseen: list again, the watches kept.
      if (!current.relisting) {
        current.relisting = true;
        this.count('a node not watched named');
        if (this.random() < this.staleRate) c.inbox.push({ kind: 'relisted', queue: this.trueQueue(), wait: current.id });
        else {
          current.relisting = false;
          this.decideOn(c, this.trueQueue(), true);
        }
      }
      return;
    }
    if ('waitFor' in decision && current?.type === 'node' && keeps(current.decision, decision)) {
      // `ObstacleWait.update`: the same node still, on a newer listing.
      current.decision = decision;
      current.aheadListing = 'none';
      c.behindWaitedFor = behindOf(decision, queue);
      if (current.ahead !== decision.watchAhead) this.watchAhead(c, current);
      return;
    }
    c.wait = undefined;
    if (decision.held) {
      this.hold(c, fresh);
      return;
    }
    const id = this.nextWait++;
    if ('waitForAnyOf' in decision) {
      const wait: Wait = { type: 'anyOf', id, queue: [...queue], watching: new Set(), creations: new Set(), relisting: false };
      c.wait = wait;
      for (const name of decision.relistIfCreated ?? []) {
        wait.creations.add(name);
        if (this.nodes.has(name)) {
          c.inbox.push({ kind: 'created', name, wait: id }); // the wait ends: list again
          return;
        }
        this.watch(this.exists, name, c, id);
      }
      for (const name of decision.waitForAnyOf) this.watchAnyOf(c, wait, name);
    } else if ('waitForChildren' in decision) {
      c.wait = { type: 'children', id };
      if (!armedChildren) {
        // `LockQueue.waitForChildren`: lists again with a watch, and decides on it if it differs.
        this.count('to watch the children');
        const now = this.trueQueue();
        this.children.add({ c, wait: id });
        if (now.map((entry) => entry.name).join() !== queue.map((entry) => entry.name).join()) {
          c.wait = undefined;
          this.decideOn(c, now, true, true);
        }
        return;
      }
      this.children.add({ c, wait: id });
    } else {
      c.behindWaitedFor = behindOf(decision, queue);
      const wait: NodeWait = {
        type: 'node',
        id,
        decision,
        predecessorLocal: (decision.lastObstacleIfHeld === true || decision.decideBehindIfHeld === true) && this.isLocal(c, decision.waitFor),
        ahead: undefined,
        aheadListing: 'none',
      };
      c.wait = wait;
      const appears = decision.relistIfCreated;
      if (appears !== undefined) {
        if (this.nodes.has(appears)) {
          c.inbox.push({ kind: 'created', name: appears, wait: id }); // the wait ends: list again
          return;
        }
        this.watch(this.exists, appears, c, id);
      }
      const node = this.nodes.get(decision.waitFor);
      if (node === undefined) {
        c.inbox.push({ kind: 'deleted', name: decision.waitFor, wait: id }); // NO_NODE: told as its deletion
        this.watchAhead(c, wait);
        return;
      }
      this.watch(this.deletions, decision.waitFor, c, id);
      this.watchAhead(c, wait);
    }
  }

  /** `ObstacleWait.watchAhead`: a deletion watch on the node ahead (not for a local predecessor). */
  private watchAhead(c: ContenderModel, wait: NodeWait): void {
    const name = wait.decision.watchAhead;
    wait.ahead = wait.predecessorLocal ? undefined : name;
    if (wait.ahead === undefined) return;
    if (this.nodes.has(wait.ahead)) this.watch(this.deletions, wait.ahead, c, wait.id);
    else c.inbox.push({ kind: 'deleted', name: wait.ahead, wait: wait.id }); // NO_NODE: told as its deletion
  }

  /** `AnyOfWait.arm`: a deletion watch on `name`, or, gone already, told like its deletion event. */
  private watchAnyOf(c: ContenderModel, wait: Extract<Wait, { type: 'anyOf' }>, name: string): void {
    wait.watching.add(name);
    if (this.nodes.has(name)) this.watch(this.deletions, name, c, wait.id);
    else c.inbox.push({ kind: 'deleted', name, wait: wait.id });
  }

  private hold(c: ContenderModel, fresh: boolean): void {
    const queue = this.trueQueue();
    const truth = c.truth.decide(queue, queue.findIndex((entry) => entry.name === c.name));
    if (!truth.held) {
      throw new Violation(`${c.name} granted ${fresh ? 'on a fresh listing' : 'by a shortcut'} while decide on the true queue says ${JSON.stringify(truth)}; queue: ${queue.map((e) => e.name).join(' ')}`);
    }
    if (!fresh) this.shortcutGrants++;
    c.state = 'held';
    c.wait = undefined;
    this.nodes.get(c.name)!.held = true;
    this.grants.push(c.name);
  }

  /** Runs until nothing is left to do. */
  quiesce(): void {
    this.settle();
  }

  /** Removes a node, keeping its last state for its local waiters. */
  remove(name: string): void {
    this.goneStates.set(name, { ...this.nodes.get(name)! });
    this.leave(name);
  }
}

/** `ObstacleWait.keeps`: the wait under way is the one `next` asks for. */
function keeps(current: NodeWait['decision'], next: NodeWait['decision']): boolean {
  const shortcut = (d: NodeWait['decision']): boolean => d.lastObstacleIfHeld === true || d.decideBehindIfHeld === true;
  return next.waitFor === current.waitFor && next.relistIfCreated === current.relistIfCreated && shortcut(next) === shortcut(current);
}

/** `decideBehindIfHeld`: the nodes behind the one waited for, in the queue decided on. */
function behindOf(decision: NodeWait['decision'], queue: readonly QueueEntry[]): QueueEntry[] | undefined {
  return decision.decideBehindIfHeld === true ? queue.slice(queue.findIndex((entry) => entry.name === decision.waitFor) + 1) : undefined;
}

const holdersOf = new WeakMap<readonly QueueEntry[], string[]>();

/** The holders `decide` names on the true queue. */
function trueHolders(run: RunModel, recipe: ModelRecipe): string[] {
  const queue = run.trueQueue();
  let holders = holdersOf.get(queue);
  if (holders === undefined) {
    holders = queue.filter((entry, i) => recipe.ruleOf(entry.name).decide(queue, i).held).map((entry) => entry.name).sort();
    holdersOf.set(queue, holders);
  }
  return holders;
}

/** Plays one random script (from `seed`) with and without hints, and checks the properties. */
export function checkCase(recipe: ModelRecipe, seed: number, options: ModelOptions): CaseResult {
  const script = prng(seed);
  const withHints = options.hinted ?? ((rule: OrderingRule) => rule);
  const races = options.races ?? true;
  const stale = races ? (options.staleRate ?? 0.3) : 0;
  const hinted = new RunModel(recipe, withHints, prng(seed ^ 0x5bd1e995), stale);
  const bare = new RunModel(recipe, withoutHints, prng(seed ^ 0x27d4eb2f), stale);
  const runs = [hinted, bare];
  let sequence = 1;
  let guid = 1;
  /** Lets both runs finish what they do, then compares their holders with `decide`'s. */
  const compare = (): string | undefined => {
    for (const run of runs) run.quiesce();
    const truth = trueHolders(hinted, recipe).join(' ');
    const [h, b] = runs.map((run) => run.holders().join(' '));
    return h === truth && b === truth ? undefined : `holders with hints [${h}], without [${b}], decide on the true queue [${truth}]`;
  };
  const result = (failure?: string): CaseResult => ({
    ...(failure === undefined ? {} : { failure: `seed ${seed}: ${failure}` }),
    listings: { hinted: hinted.listings, bare: bare.listings },
    aheadListings: hinted.aheadListings,
    grants: hinted.grants.length,
    shortcutGrants: hinted.shortcutGrants,
  });
  try {
    for (let event = 0; event < options.events; event++) {
      const queue = hinted.trueQueue();
      const r = script();
      let what: string;
      if (queue.length < 2 || r < 0.4) {
        const name = recipe.arrival(script, guidOf(guid++), sequence++);
        const process = Math.floor(script() * 3);
        what = `arrive ${name} (process ${process})`;
        for (const run of runs) run.arrive(name, process);
      } else {
        const truth = trueHolders(hinted, recipe);
        const downgradable = truth.filter((name) => {
          const readName = recipe.downgradeOf?.(name) ?? null;
          const node = hinted.nodes.get(name)!;
          return readName !== null && !hinted.nodes.has(readName) && node.contender !== undefined && !node.keepsPlace;
        });
        if (r < 0.55 && downgradable.length > 0) {
          // Only a holder downgrades: both runs must have granted it (checked as after any event).
          const before = compare();
          if (before !== undefined) return result(`before event ${event}: ${before}`);
          const holder = downgradable[Math.floor(script() * downgradable.length)]!;
          const readName = recipe.downgradeOf!(holder)!;
          what = `downgrade ${holder}`;
          for (const run of runs) run.downgrade(holder, readName);
          // Its write node goes next: without races, once the read node's creation is handled.
          if (!races) for (const run of runs) run.quiesce();
          if (script() < 0.5) for (const run of runs) run.remove(holder);
        } else {
          const name = queue[Math.floor(script() * queue.length)]!.name;
          what = `leave ${name}`;
          for (const run of runs) run.remove(name);
        }
      }
      // Some events come before the contenders have done what the last one asked of them.
      if (races && script() < 0.5) {
        const limit = Math.floor(script() * 4);
        for (const run of runs) run.settle(limit);
        continue;
      }
      const after = compare();
      if (after !== undefined) return result(`after event ${event} (${what}): ${after}`);
    }
    const end = compare();
    if (end !== undefined) return result(`after the last event: ${end}`);
    // Every holder releases in turn until the queue is empty: both runs have then paid for
    // every acquisition in full.
    for (let queue = hinted.trueQueue(); queue.length > 0; queue = hinted.trueQueue()) {
      const truth = trueHolders(hinted, recipe);
      const name = truth[Math.floor(script() * truth.length)]!;
      for (const run of runs) run.remove(name);
      for (const run of runs) run.quiesce();
      const after = trueHolders(hinted, recipe).join(' ');
      const [h, b] = runs.map((run) => run.holders().join(' '));
      if (h !== after || b !== after) return result(`draining, after ${name} left: holders with hints [${h}], without [${b}], decide on the true queue [${after}]`);
    }
  } catch (err) {
    if (err instanceof Violation) return result(err.message);
    throw err;
  }
  if (!races && hinted.listings > bare.listings) {
    const why = (run: RunModel): string => JSON.stringify(Object.fromEntries(run.listingsBy));
    return result(`the hinted run made ${hinted.listings} listings ${why(hinted)}, the bare run ${bare.listings} ${why(bare)}`);
  }
  return result();
}

export interface PropertyResult {
  cases: number;
  failures: string[];
  listings: { hinted: number; bare: number };
  aheadListings: number;
  grants: number;
  shortcutGrants: number;
}

/** Runs `cases` random cases from `seed` on, and gathers the failures (each names its seed). */
export function checkMany(recipe: ModelRecipe, seed: number, cases: number, options: ModelOptions): PropertyResult {
  const total: PropertyResult = { cases, failures: [], listings: { hinted: 0, bare: 0 }, aheadListings: 0, grants: 0, shortcutGrants: 0 };
  for (let i = 0; i < cases; i++) {
    const one = checkCase(recipe, seed + i, options);
    if (one.failure !== undefined) total.failures.push(one.failure);
    if (one.failure !== undefined && options.firstFailure === true) return { ...total, cases: i + 1 };
    total.listings.hinted += one.listings.hinted;
    total.listings.bare += one.listings.bare;
    total.aheadListings += one.aheadListings;
    total.grants += one.grants;
    total.shortcutGrants += one.shortcutGrants;
  }
  return total;
}
