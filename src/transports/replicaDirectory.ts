import { ReplicaTrust } from "./replicaTrust.js";
import type { SessionDirectory } from "./replicaForward.js";

/** Where ownership records are kept (state/sharedState.ts: Redis for replicas). */
export interface OwnershipStore {
  own(sessionId: string, record: string, ttlMs: number): Promise<void>;
  ownerOf(sessionId: string): Promise<string | null>;
  disown(sessionId: string): Promise<void>;
}

/**
 * The replicas' session directory over the shared state, signed with the state secret (replicaTrust.ts):
 * records are written with their HMAC, and a record that does not verify is never followed: the request
 * is answered as for an owner that is gone (404, the client opens a new session), with a line on stderr.
 * A hop header that does not verify is ignored (the request is the client's own), also with a line.
 */
export function signedDirectory(
  store: OwnershipStore,
  self: () => string,
  secret: string,
  log: (line: string) => void,
): SessionDirectory {
  const trust = new ReplicaTrust(secret);
  return {
    get self() {
      return self();
    },
    own: (id, owner, ttlMs) => store.own(id, trust.ownershipRecord(id, owner), ttlMs),
    ownerOf: async (id) => {
      const record = await store.ownerOf(id);
      if (record === null) return null;
      const reading = trust.readOwnership(id, record);
      if ("owner" in reading) return reading.owner;
      log(
        `session ${id}: its ownership record in the state is not followed (${reading.why}); ` +
          "the client gets 404. No replica with this TOOLGATE_STATE_SECRET wrote it: " +
          "check who can write to the state store (E_REPLICA_UNPROVEN)",
      );
      return null;
    },
    disown: (id) => store.disown(id),
    proveHop: (id, owner) => trust.hopProof(id, owner),
    checkHop: (id, proof) => {
      if (trust.checkHop(id, self(), proof)) return true;
      log(
        `session ${id}: a request carried a replica hop header that no replica with this ` +
          "TOOLGATE_STATE_SECRET made for this replica in the last 2 minutes; served as the client's own " +
          "(E_REPLICA_UNPROVEN)",
      );
      return false;
    },
  };
}
