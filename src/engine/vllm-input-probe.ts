/**
 * The liveness question for vLLM engines: `get_supported_tasks` (wire-vllm §3.7). It takes no
 * arguments, changes nothing, and its answer (a tuple of task names) is plain msgpack, so it
 * needs no insecure serialization. vLLM's own frontend asks the same question through
 * `call_utility("get_supported_tasks")` (vllm-project/vllm, vllm/v1/engine/core_client.py).
 */
import { encodeUtility } from './dialects/vllm/index.js';
import type { InputProbeSpec } from './input-probe.js';

export const VLLM_INPUT_PROBE: InputProbeSpec = {
  method: 'get_supported_tasks',
  encode: (callId) => encodeUtility(callId, 'get_supported_tasks', []),
};
