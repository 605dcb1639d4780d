/**
 * How much of what it read from ZooKeeper the CLI prints, in UTF-16 units after escaping
 * (docs/observability.md, "Hostile data"). Anything longer is cut, ending in `…`. Each bound is
 * above what the recipes themselves write, so only data nobody's lock wrote is ever cut.
 */
export const PRINT_LIMITS = {
  /** NODE (`inspect`): a recipe's node is at most ~80 (`leases/_c_<uuid>-lease-w<n>-<sequence>`). */
  node: 100,
  /** HOST (`inspect`, `revoke`): Linux host names are at most 64. */
  host: 64,
  /** LABEL (`inspect`, `revoke`): a session's label is at most 128. */
  label: 128,
  /** ID (`inspect` of an election): a participant's id, as a service names itself. */
  id: 128,
  /** A lock's path: `ls`'s PATH, `inspect`'s heading, `revoke`'s node. */
  path: 256,
  /** Any other table cell (what the CLI writes itself is far shorter). */
  cell: 256,
  /** One name quoted in an error message. */
  quotedName: 64,
  /** A whole error message on stderr. */
  message: 1000,
} as const;

/**
 * How much of a node's owner data `readLockSnapshot` keeps (and `--json` prints): the most a
 * zk-recipes process writes, `os.hostname()` (at most 255 on any system) and a session's label
 * (at most 128). Longer values are cut, ending in `…`.
 */
export const OWNER_LIMITS = { host: 255, label: 128 } as const;

/**
 * How much of an election participant's id `readLockSnapshot` keeps (and `--json` prints): an id is
 * whatever the participant wrote (up to the server's 1 MB), so it is cut, ending in `…`.
 */
export const ID_LIMIT = 1024;
