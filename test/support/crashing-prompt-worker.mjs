// A prompt worker thread that dies on cue: the text job `__crash__` throws out of a message
// listener that runs before the real worker's, as an uncaught error would kill a real thread.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

parentPort.on('message', (job) => {
  if (job && job.op === 'text' && job.text === '__crash__') throw new Error('simulated prompt worker crash');
});
register();
await import('../../src/pipeline/prompt-pool/prompt-worker.ts');
