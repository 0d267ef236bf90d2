// Entry of a prompt worker thread. Worker threads do not inherit the tsx loader that bin/smg.js
// registers on the main thread (nor vitest's transform), so each thread registers its own before
// loading the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./prompt-worker.ts');
