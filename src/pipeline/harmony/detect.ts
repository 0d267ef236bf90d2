/**
 * Whether a model speaks Harmony (gpt-oss) and so needs the Harmony pipeline instead of a chat
 * template (request-pipeline.md §3.1.1 step 5). Same three signals, same precedence, as SMG's
 * `HarmonyDetector::is_harmony_worker` (smg-project/smg
 * model_gateway/src/routers/grpc/harmony/detector.rs): an architecture of `GptOssForCausalLM`,
 * an HF `model_type` of `gpt_oss`, or a model id containing `gpt-oss` in any ASCII case.
 */

export interface HarmonyModelInfo {
  /** config.json `model_type` (SMG's model card `hf_model_type`). */
  modelType?: string | null;
  /** config.json `architectures`. */
  architectures?: readonly string[] | null;
  /** The served model id (or path). */
  modelId?: string | null;
}

const ARCHITECTURE = 'GptOssForCausalLM';
const MODEL_TYPE = 'gpt_oss';
const ID_MARKER = 'gpt-oss';

export function isHarmonyModel(info: HarmonyModelInfo): boolean {
  if (info.architectures?.includes(ARCHITECTURE)) return true;
  if (info.modelType === MODEL_TYPE) return true;
  // SMG compares bytes with eq_ignore_ascii_case; ASCII lower-casing matches it (toLowerCase
  // would also fold non-ASCII letters, which cannot matter for this ASCII marker).
  return typeof info.modelId === 'string' && info.modelId.replace(/[A-Z]/g, (c) => c.toLowerCase()).includes(ID_MARKER);
}
