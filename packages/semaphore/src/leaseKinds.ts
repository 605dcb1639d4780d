/**
 * Node kinds of the `queue` layout. A node's name carries the number of leases it holds, so every
 * contender can add up the queue from one listing: `lease-` is one lease (the same kind Curator
 * writes, so a stray Curator lease counts as one), `lease-w<n>-` is n leases taken together.
 */
export const LEASE_KIND = 'lease-';

const WEIGHTED_RE = /^lease-w([1-9]\d{0,8})-$/;

/** The kind of a node that holds `weight` leases. */
export function leaseKind(weight: number): string {
  return weight === 1 ? LEASE_KIND : `lease-w${weight}-`;
}

/** Leases held by a node of this kind, or `null` when the kind is not a lease kind. */
export function weightOfKind(kind: string): number | null {
  if (kind === LEASE_KIND) return 1;
  const match = WEIGHTED_RE.exec(kind);
  return match === null ? null : Number(match[1]);
}
