import { createRawClient, type RawClient } from './rawClient.js';

/** A session's identity, as ZooKeeper hands it to the client that created it. */
export interface SessionCredentials {
  /** 8-byte session id. */
  sessionId: Buffer;
  /** 16-byte session password. */
  password: Buffer;
}

type AttachOutcome = 'closed' | 'expired';

/**
 * Expires a session on the server, deterministically (Curator's KillSession): a second raw client
 * attaches to the same session (id + password) and closes it, which ends the session on the server
 * and deletes its ephemeral nodes. Resolves once a fresh attach with the same credentials is told
 * "expired", i.e. the server no longer knows the session. The original client learns it is
 * expired when it next talks to the server.
 */
export async function expireSession(connectString: string, credentials: SessionCredentials, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`expireSession: session 0x${credentials.sessionId.toString('hex')} still alive after ${timeoutMs} ms`);
    // The first attach normally closes the session; the second then confirms it is gone.
    if ((await attachAndClose(connectString, credentials, remaining)) === 'expired') return;
  }
}

/** Attaches to the session: 'expired' if the server says so, else closes it and says 'closed'. */
function attachAndClose(connectString: string, credentials: SessionCredentials, timeoutMs: number): Promise<AttachOutcome> {
  return new Promise<AttachOutcome>((resolve, reject) => {
    const client: RawClient = createRawClient(connectString, {
      sessionId: credentials.sessionId,
      sessionPassword: credentials.password,
      sessionTimeout: 4_000,
      spinDelay: 50,
    });
    let closing = false;
    const finish = (err: Error | null, outcome?: AttachOutcome): void => {
      clearTimeout(timer);
      client.removeAllListeners();
      if (!closing) client.close();
      if (err !== null) reject(err);
      else resolve(outcome!);
    };
    const timer = setTimeout(() => finish(new Error(`expireSession: could not reach ${connectString} within ${timeoutMs} ms`)), timeoutMs);
    client.on('expired', () => {
      closing = true; // The wire client closes itself after an expiry.
      finish(null, 'expired');
    });
    client.on('connected', () => {
      if (closing) return;
      closing = true;
      // The server answers closeSession and then drops the connection: the session is gone when
      // the socket closes (confirmed by the next attach).
      client.on('disconnected', () => finish(null, 'closed'));
      client.close();
    });
    client.connect();
  });
}
