/**
 * msgpack decoding on the gateway side: @msgpack/msgpack's Decoder, which yields plain JS values.
 * vLLM's ext types are handled like its `serial_utils`: ext 3 (raw array/tensor bytes) is
 * returned as a COPY with its own ArrayBuffer — the library hands out views into the frame at
 * arbitrary offsets, which typed-array constructors reject for 4/8-byte element types — and
 * every other ext code (1/2 = pickle) is refused with vLLM's own message.
 *
 * The engine side's msgspec-strict reader lives with the mock engine
 * (src/mock-engine/wire/typed-reader.ts).
 */
import { Decoder, type ExtensionCodecType } from '@msgpack/msgpack';
import { WireDecodeError } from '../types.js';

/** vLLM's CUSTOM_TYPE_RAW_VIEW: the raw bytes of an ndarray/tensor buffer. */
export const EXT_RAW_VIEW = 3;

const vllmExtensions: ExtensionCodecType<undefined> = {
  tryToEncode: () => null,
  decode(data: Uint8Array, extType: number): unknown {
    if (extType === EXT_RAW_VIEW) return new Uint8Array(data); // copy: own buffer, offset 0
    throw new WireDecodeError(`Extension type code ${extType} is not supported`);
  },
};

const gatewayDecoder = new Decoder({ extensionCodec: vllmExtensions });

/** Decode one msgpack message into plain JS values; throws WireDecodeError on any defect. */
export function decodeMsgpack(bytes: Uint8Array, what = 'message'): unknown {
  try {
    return gatewayDecoder.decode(bytes);
  } catch (err) {
    if (err instanceof WireDecodeError) throw err;
    throw new WireDecodeError(`undecodable ${what}: ${(err as Error).message}`);
  }
}
