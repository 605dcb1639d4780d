/**
 * Runs `tell` in the order of watch events: the session delivers events with `setImmediate` and
 * replies as promise reactions, so a departure learnt from a reply (a NO_NODE answer to a watch
 * request: the node is already gone) must wait its turn, or it would overtake events the server
 * sent before that reply (e.g. the creation of a node that now stands ahead of us).
 */
export function tellAsEvent(tell: () => void): void {
  setImmediate(tell);
}
