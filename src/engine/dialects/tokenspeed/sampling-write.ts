/**
 * Writes the 29-slot SamplingParams array (§4.3) slot by slot from the shared layout. Float slots
 * always go out as float64, so an integral value like temperature 1.0 is `cb 3ff0…`, as msgspec
 * writes it, and our bytes equal the spec vectors.
 */
import type { MsgpackWriter } from '../../msgpack/writer.js';
import { SAMPLING_LAYOUT, type SlotKind, type TsSamplingParams } from './sampling-layout.js';

export function writeTokenSpeedSampling(w: MsgpackWriter, sp: TsSamplingParams): void {
  w.arrayHeader(SAMPLING_LAYOUT.length);
  for (const slot of SAMPLING_LAYOUT) writeSlot(w, slot.kind, sp[slot.key], slot.key);
}

function writeSlot(w: MsgpackWriter, kind: SlotKind, v: unknown, key: string): void {
  if (v === null || v === undefined) {
    if (kind.endsWith('?')) {
      w.nil();
      return;
    }
    throw new TypeError(`tokenspeed sampling: ${key} must not be null`);
  }
  switch (kind) {
    case 'int':
    case 'int?':
      w.int(v as number); // throws RangeError on floats: the engine would drop the message
      return;
    case 'float':
      w.float64(v as number);
      return;
    case 'bool':
      w.bool(v as boolean);
      return;
    case 'str?':
      w.str(v as string);
      return;
    case 'int[]?':
      w.intArray(v as number[]);
      return;
    case 'str|str[]?':
      if (typeof v === 'string') w.str(v);
      else w.strArray(v as string[]);
      return;
    case 'map?':
      w.value(v);
      return;
    case 'floatmap?': {
      const entries = Object.entries(v as Record<string, number>);
      w.mapHeader(entries.length);
      for (const [k, x] of entries) w.str(k).float64(x);
      return;
    }
  }
}
