/** Harmony (gpt-oss): detection, prompt rendering, output channel parsing, stops. */
export { isHarmonyModel, type HarmonyModelInfo } from './detect.js';
export { renderHarmonyPrompt, harmonyMessages } from './render.js';
export { harmonyReasoningEffort } from './system-message.js';
export { HarmonyRenderError } from './errors.js';
export { HarmonyChannelParser, parseHarmony, callableToolNames, type HarmonyParserOptions } from './channel-parser.js';
export { harmonyStopTokenIds, isStopStringTarget, type HarmonyStopFilter } from './stops.js';
export type * from './types.js';
