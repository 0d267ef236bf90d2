/**
 * Stopping a process group we do not (or no longer) hold as a child: SIGTERM, wait while anything
 * is left in the group, SIGKILL after the grace, wait again. Used for engines a crashed serve left
 * behind; a child of ours is stopped by the Supervisor, which awaits its real exit instead.
 */
import { groupExists } from './process-identity.js';
import { killProcessGroup } from './spawn-engine.js';

const POLL_MS = 50;
/** After SIGKILL only an unkillable (D-state) process remains; do not wait for it forever. */
const AFTER_KILL_MS = 5000;

async function goneWithin(pgid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (!groupExists(pgid)) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Resolves with how the group ended: 'term' (left on SIGTERM), 'kill', or 'stuck'. */
export async function stopProcessGroup(pgid: number, graceMs: number): Promise<'term' | 'kill' | 'stuck'> {
  killProcessGroup(pgid, 'SIGTERM');
  if (await goneWithin(pgid, graceMs)) return 'term';
  killProcessGroup(pgid, 'SIGKILL');
  return (await goneWithin(pgid, AFTER_KILL_MS)) ? 'kill' : 'stuck';
}
