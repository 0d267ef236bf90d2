import type { RoutableWorker } from '../../src/workers/policies/policy.js';

/** A worker as the routing policies see it: an id, a url derived from it, a settable load. */
export class W implements RoutableWorker {
  constructor(
    readonly id: string,
    public load = 0,
  ) {}
  get url() {
    return `ipc:///tmp/${this.id}`;
  }
  loadScore() {
    return this.load;
  }
}
