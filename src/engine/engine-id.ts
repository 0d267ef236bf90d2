/**
 * Engine identities: the ZMQ routing id of an engine's DEALERs, 2 bytes little-endian. vLLM ranks
 * are 0..N-1; TokenSpeed dials with base+rank, so the value is not assumed to start at 0.
 */

export const ENGINE_ID_BYTES = 2;

/** SMG's Debug form, e.g. `EngineId(0100)` for index 1; it appears in error texts. */
export function formatEngineId(id: Uint8Array): string {
  return `EngineId(${Buffer.from(id.buffer, id.byteOffset, id.byteLength).toString('hex')})`;
}

export function engineIdFor(index: number): Buffer {
  const b = Buffer.allocUnsafe(ENGINE_ID_BYTES);
  b.writeUInt16LE(index, 0);
  return b;
}

/** The engine index an identity encodes, or null for identities that are not 2 bytes. */
export function engineIndexOf(id: Uint8Array): number | null {
  return id.byteLength === ENGINE_ID_BYTES ? id[0] | (id[1] << 8) : null;
}
