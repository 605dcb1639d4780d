/**
 * A duration as `kubectl get` shows ages, short and to two units at most: `850ms`, `12s`, `3m04s`,
 * `2h05m`, `3d04h`.
 */
export function formatAge(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.floor(ms))}ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${pad(seconds % 60)}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h${pad(minutes % 60)}m`;
  return `${Math.floor(hours / 24)}d${pad(hours % 24)}h`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
