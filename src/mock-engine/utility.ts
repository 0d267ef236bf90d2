/**
 * UTILITY RPCs (wire-vllm §3.7). Only methods whose answer is a plain msgpack value; anything else
 * fails the way vLLM reports a missing attribute, and the engine keeps running.
 *
 * `get_supported_tasks` is the gateway's liveness question for a rank whose requests wait without
 * output (src/engine/input-probe.ts): the reply is `[call_id, nil, [nil, ["generate"]]]`, as vLLM
 * sends a generate model's task tuple. It is answered from the input loop, so a stalled input
 * (`--mock-fault stall-input`) or a silent engine never answers, like the real half-dead engine.
 */

export interface UtilityResult {
  failure: string | null;
  result: unknown;
}

const METHODS: Record<string, (args: unknown[]) => unknown> = {
  get_supported_tasks: () => ['generate'],
  is_sleeping: () => false,
  reset_prefix_cache: () => true,
  reset_mm_cache: () => null,
  list_loras: () => [],
};

export function callUtility(method: string, args: unknown[]): UtilityResult {
  const fn = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (!fn) {
    return {
      failure: `Call to ${method} method failed: 'EngineCoreProc' object has no attribute '${method}'`,
      result: null,
    };
  }
  return { failure: null, result: fn(args) };
}
