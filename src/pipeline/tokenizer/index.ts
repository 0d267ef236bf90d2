export { loadTokenizer } from './load.js';
export { TokenizerLoadError } from './errors.js';
export { looksLikeHubId, resolveHubSnapshot, type HubOptions } from './hub.js';
export type { LoadedTokenizer, LoadTokenizerOptions } from './types.js';
