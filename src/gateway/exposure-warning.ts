/**
 * The start-up warning for a gateway anyone on the network can drive. Without --api-key every
 * route is open, the workers API included: whoever reaches the port can register ipc:// workers,
 * which makes the gateway create directories and bind (and remove) socket files as its own user.
 * That is fine on loopback and dangerous on 0.0.0.0, the default.
 */
import { isIP } from 'node:net';

/** Loopback only: 127.0.0.0/8, ::1 (and its IPv4-mapped form), `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return h.slice(7).startsWith('127.');
  return false;
}

/** The warning to log, or null when the gateway is on loopback or has an API key. */
export function exposureWarning(host: string, apiKey: string | null | undefined): string | null {
  if (apiKey || isLoopbackHost(host)) return null;
  return (
    `SECURITY: listening on ${host} without --api-key: anyone who can reach this port can run ` +
    'requests and use the workers API (POST/PUT/DELETE /workers) to make this gateway create ' +
    'directories and bind or remove socket files as its own user. Set --api-key, or --host 127.0.0.1 ' +
    'behind a proxy that authenticates.'
  );
}
