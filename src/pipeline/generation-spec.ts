import type { EngineClientApi } from '../engine/client-types.js';
import type { Decoder } from './detokenizer.js';
import type { ChoiceSpec } from './fan-out.js';
import type { DecodeRules } from './generate.js';
import type { OutputPlan } from './output/output-plan.js';
import type { RoutedWorker } from './services.js';

/** A generation ready to start: the prepare steps' result, whatever protocol asked. */
export interface GenerationSpec {
  worker: RoutedWorker;
  client: EngineClientApi;
  tokenizer: Decoder;
  choices: ChoiceSpec[];
  rules: DecodeRules;
  /** How the choices' text becomes events; null = plain content. */
  output: OutputPlan | null;
  stream: boolean;
  /** Emit each engine step's token ids as `tokens` events (`/generate` shows them). */
  tokenIds?: boolean;
  /** Canonical model id (metrics label, response `model`). */
  model: string;
  /** vLLM scheduling priority for every choice (0 = default). */
  priority?: number;
}
