/**
 * Whether a port is a plaintext ZooKeeper client port: the other half of telling a TLS session
 * why its handshake was cut short. A plaintext port closes the connection on our TLS hello without
 * a byte, exactly as a TLS server that is not serving yet (in an election) closes a new one, so
 * the close alone proves nothing; a plaintext port also answers a four-letter word in plaintext,
 * serving or not (or says it is not whitelisted), which a TLS port never does. See docs/security.md.
 */
import { connect } from 'node:net';
import { PROBE_TIMEOUT_MS, probe } from './portProbe.js';

/** Resolves true when `host:port` answers `srvr` with plaintext bytes; false on silence, a close, or a TLS record. */
export function speaksPlaintextZooKeeper(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return probe(
    connect({ host, port }),
    (socket, answer) => {
      socket.once('connect', () => socket.write('srvr'));
      // 0x14-0x17 then 0x03: a TLS record (an alert), not text.
      socket.once('data', (chunk: Buffer) => answer(!(chunk[0]! >= 0x14 && chunk[0]! <= 0x17 && chunk[1] === 0x03)));
    },
    timeoutMs,
  );
}
