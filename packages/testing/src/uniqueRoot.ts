import { randomBytes } from 'node:crypto';

/**
 * A fresh root path for one test file (or test), so files sharing a server never see each
 * other's nodes: `/zkr-test/<name>-<random>`.
 */
export function uniqueRoot(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_.-]/g, '-') || 'test';
  return `/zkr-test/${safe}-${randomBytes(6).toString('hex')}`;
}
