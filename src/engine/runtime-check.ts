/**
 * Both engines speak the same handshake, so a worker declared with the wrong runtime connects
 * fine and then every request is lost: TokenSpeed drops a vLLM ADD (wrong tag) without a reply,
 * and vLLM's input thread dies on a TokenSpeed ADD. The registration's `vllm_version` is the one
 * in-band signal ("tokenspeed-<v>" only from TokenSpeed, wire-tokenspeed §2.4), so the connection
 * is refused with a message that names the fix instead of letting requests hang.
 */
import { formatEngineId } from './engine-id.js';
import type { Registration, RuntimeType } from './types.js';

const TOKENSPEED_PREFIX = 'tokenspeed-';

export function runtimeMismatch(
  runtime: RuntimeType,
  url: string,
  engines: readonly { identity: Buffer; registration: Registration }[],
): string | null {
  for (const e of engines) {
    const version = e.registration.raw.vllm_version;
    if (typeof version !== 'string') continue;
    const isTokenSpeed = version.startsWith(TOKENSPEED_PREFIX);
    if (isTokenSpeed === (runtime === 'tokenspeed')) continue;
    const engine = `engine ${formatEngineId(e.identity)} reports vllm_version ${JSON.stringify(version)}`;
    return isTokenSpeed
      ? `${engine}, i.e. it is a TokenSpeed engine, but worker ${url} is configured for runtime vllm; ` +
          'the wires are incompatible (requests would be dropped without a reply): declare runtime_type tokenspeed ' +
          '(--backend tokenspeed for --worker-urls workers)'
      : `${engine}, i.e. it is not a TokenSpeed engine, but worker ${url} is configured for runtime tokenspeed; ` +
          'the wires are incompatible (requests would kill the engine input thread): declare runtime_type vllm ' +
          '(--backend vllm for --worker-urls workers)';
  }
  return null;
}
