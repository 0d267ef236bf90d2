export { FastBpeEncoder } from './encoder.js';
export { buildFastBpeEncoder, loadFastBpeEncoder, type FastBpeLoad } from './load.js';
export { firstMismatch, probeTexts, sameIds, verifiedFastEncoder, type EncodeIds } from './verify.js';
export { PARITY_SAMPLES, specialTokenProbe } from './probe-texts.js';
