
/*
 * Owner data: what a queue node says about the process that made it (docs/observability.md,
 * "Owner data"), so that `zk-recipes inspect` and zkCli can tell whose a node is. UTF-8 JSON,
 * keys in this order, no whitespace:
 * `{"zkRecipes":1,"host":"<host name>","pid":<pid>,"label":"<label>","id":"<id>"}` (`label` only
 * when set; `id` only on an election participant's node that keeps its owner beside its id).
 */

/** Who made a queue node: the host, the process, and the caller's label for its locks (if any). */
export interface NodeOwner {
  /** `os.hostname()` of the creating process. */
  host: string;
  /** `process.pid` of the creating process. */
  pid: number;
  /** The session's `label` option, naming this process's locks. */
  label?: string;
  /**
   * An election participant's id, when its node carries the owner beside the id (the leader
   * recipes' `ownerData` option) rather than the id alone.
   */
  id?: string;
}

/** The format's version, the first key: a reader tells owner data from user data by it. */
const FORMAT_VERSION = 1;


/** The node data naming `owner`. */
export function encodeOwnerData(owner: NodeOwner): Uint8Array {
  // Keys in the documented order; an undefined value is left out by JSON.stringify.
  const record = { zkRecipes: FORMAT_VERSION, host: owner.host, pid: owner.pid, label: owner.label, id: owner.id };
  return Buffer.from(JSON.stringify(record), 'utf8');
}

/**
 * The owner a node's data names: owner data as {@link encodeOwnerData} writes it. `undefined` for
 * anything else: Curator's IP-address bytes, Curator's
 * `__REVOKE__` marker, a caller's own `data`, an empty node.
 */
export function parseOwnerData(data: Uint8Array): NodeOwner | undefined {
  // Owner data is ASCII JSON at heart: anything not starting with `{` is not it, decided without
  // decoding a large user payload.
  if (data.length === 0 || data[0] !== 0x7b /* { */) return undefined;
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  if (!text.startsWith('{"zkRecipes":')) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return undefined;
  }
  return ownerOf(record);
}

function ownerOf(record: unknown): NodeOwner | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const { zkRecipes, host, pid, label, id } = record as Record<string, unknown>;
  if (zkRecipes !== FORMAT_VERSION || typeof host !== 'string' || !Number.isSafeInteger(pid) || (pid as number) < 0) return undefined;
  if ((label !== undefined && typeof label !== 'string') || (id !== undefined && typeof id !== 'string')) return undefined;
  const owner: NodeOwner = { host, pid: pid as number };
  if (label !== undefined) owner.label = label;
  if (id !== undefined) owner.id = id;
  return owner;
}
