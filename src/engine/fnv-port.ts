/**
 * The handshake port SMG derives from a worker's ipc path, bit for bit:
 * 20000 + FNV-1a-64(path bytes) mod 10000. A bare path (no `ipc://`) is hashed as-is.
 */
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

export function fnv1a64(bytes: Uint8Array): bigint {
  let h = FNV_OFFSET;
  for (const b of bytes) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK_64;
  return h;
}

export function ipcPathOf(url: string): string {
  return url.startsWith('ipc://') ? url.slice('ipc://'.length) : url;
}

export function handshakePortFor(url: string): number {
  const h = fnv1a64(Buffer.from(ipcPathOf(url), 'utf8'));
  return 20000 + Number(h % 10000n);
}

export function handshakeAddressFor(url: string): string {
  return `tcp://127.0.0.1:${handshakePortFor(url)}`;
}
