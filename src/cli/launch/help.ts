/** `smg launch --help`: every launch flag from the shared table, grouped. */
import { groupedFlagHelp } from '../flags/help.js';
import { LAUNCH_FLAGS } from '../flags/table.js';

export function launchHelp(): string {
  return [
    'Usage: smg launch [options]',
    '',
    'Run the gateway alone against headless engines started elsewhere. Workers given with',
    '--worker-urls register in the background; the gateway serves HTTP at once and /readiness',
    'turns 200 once a worker has completed its ZMQ handshake and its tokenizer is loaded.',
    ...groupedFlagHelp(LAUNCH_FLAGS, 'launch'),
    '',
    'Exit codes: 0 after --help, 1 startup or configuration error, 2 usage error, 128+signal after',
    'SIGINT/SIGTERM (the gateway drains first; a second signal exits at once).',
    '',
  ].join('\n');
}
