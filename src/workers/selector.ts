/**
 * Per-model policy instances over the ready workers of that model. Only `ready` workers are ever
 * candidates, so a pending, not_ready, failed or draining worker is never picked.
 */
import type { Logger } from '../util/logger.js';
import { type RequestNeeds, needsNothing, runtimeServes } from './capabilities.js';
import { createPolicy, NO_HINTS, type RoutingHints, type RoutingPolicy } from './policies/index.js';
import { defaultPolicyOptions, type PolicyName, type PolicyOptions } from './types.js';
import type { Worker } from './worker.js';

export class WorkerSelector {
  private readonly policies = new Map<string, RoutingPolicy>();
  /** Models the cache_aware "no KV-event stream" note was logged for (once per model). */
  private readonly noted = new Set<string>();

  constructor(
    readonly policyName: PolicyName,
    private readonly logger: Logger,
    private readonly random: () => number = Math.random,
    private readonly options: PolicyOptions = defaultPolicyOptions(),
  ) {}

  /**
   * `model` null = any model (the caller did not name one). With `needs`, only workers whose
   * runtime can serve the request are candidates; when none can, every ready worker stays one, so
   * the pipeline's own check answers the 400 with its text (a request is refused only when no
   * worker in the pool could serve it).
   */
  pick(
    workers: Iterable<Worker>,
    model: string | null,
    tokenIds: readonly number[],
    needs?: RequestNeeds,
    hints: RoutingHints = NO_HINTS,
    accept: (w: Worker) => boolean = () => true,
  ): Worker | null {
    const candidates: Worker[] = [];
    for (const w of workers) if (w.isReady && (model === null || w.modelId === model) && accept(w)) candidates.push(w);
    if (candidates.length === 0) return null;
    return this.policyFor(model ?? '').select(capable(candidates, needs), tokenIds, hints);
  }

  workerAdded(worker: Worker): void {
    if (this.policyName === 'cache_aware' && !worker.isHttp && !this.noted.has(worker.modelId)) {
      this.noted.add(worker.modelId);
      this.logger.warn(
        `cache_aware policy for model ${worker.modelId}: ZMQ workers have no KV-event stream, so cache tracking falls back to the approximate prefix tree (logged once per model)`,
      );
    }
  }

  workerRemoved(worker: Worker): void {
    for (const p of this.policies.values()) p.removeWorker?.(worker.id);
  }

  private policyFor(model: string): RoutingPolicy {
    let p = this.policies.get(model);
    if (!p) {
      p = createPolicy(this.policyName, { modelId: model, logger: this.logger, random: this.random, options: this.options });
      this.policies.set(model, p);
    }
    return p;
  }
}

/** The candidates that can serve `needs`, or all of them when none can. */
function capable(candidates: Worker[], needs: RequestNeeds | undefined): Worker[] {
  if (needsNothing(needs)) return candidates;
  const able = candidates.filter((w) => runtimeServes(w.runtime, needs as RequestNeeds));
  return able.length > 0 ? able : candidates;
}
