/**
 * Which models have a tokenizer loaded. The request pipeline owns how a tokenizer is loaded and
 * what object it is; the gateway only needs "is it there yet" to gate /readiness.
 */
import type { Logger } from '../util/logger.js';

export interface TokenizerRegistry<T = unknown> {
  has(modelId: string): boolean;
  get(modelId: string): T | undefined;
  register(modelId: string, tokenizer: T): void;
}

export class InMemoryTokenizerRegistry<T = unknown> implements TokenizerRegistry<T> {
  private readonly byModel = new Map<string, T>();
  has(modelId: string): boolean {
    return this.byModel.has(modelId);
  }
  get(modelId: string): T | undefined {
    return this.byModel.get(modelId);
  }
  register(modelId: string, tokenizer: T): void {
    this.byModel.set(modelId, tokenizer);
  }
}

export interface TokenizerSource {
  modelId: string;
  /** --tokenizer-path, labels.tokenizer_path, else the model path. */
  source: string;
  chatTemplate: string | null;
  /** --chat-template-content-format (absent = 'auto'). */
  chatTemplateContentFormat?: 'auto' | 'string' | 'openai';
}

/** Supplied by the pipeline: load (tokenizer + template) for one model; `logger` hears what it starts. */
export type TokenizerLoader<T = unknown> = (src: TokenizerSource, logger: Logger) => Promise<T>;

const RETRY_MS = 30_000;

/** A model whose tokenizer could not be loaded: the loader's message and when it failed. */
export interface TokenizerFailure {
  message: string;
  at: number;
}

/**
 * Loads each model's tokenizer once when its first worker registers. A failed load is reported as
 * failed (readiness and GET /workers say why) and retried on the next registration or probe after
 * a back-off, so a transient hub error does not stick.
 */
export class TokenizerAutoloader {
  private readonly inFlight = new Set<string>();
  private readonly failures = new Map<string, TokenizerFailure>();
  private warnedNoLoader = false;

  constructor(
    private readonly registry: TokenizerRegistry,
    private readonly loader: TokenizerLoader | null,
    private readonly logger: Logger,
    /** Called after a load of `modelId` settled, either way. */
    private readonly onSettled: (modelId: string) => void = () => {},
  ) {}

  /** The last failed load of `modelId`, until a load succeeds. */
  failure(modelId: string): TokenizerFailure | null {
    return this.failures.get(modelId) ?? null;
  }

  ensure(src: TokenizerSource): void {
    const { modelId } = src;
    if (this.registry.has(modelId) || this.inFlight.has(modelId)) return;
    if (!this.loader) {
      if (!this.warnedNoLoader) {
        this.warnedNoLoader = true;
        this.logger.warn(`no tokenizer loader is configured; /readiness stays "tokenizer not yet registered" for model ${modelId}`);
      }
      return;
    }
    const last = this.failures.get(modelId);
    if (last !== undefined && Date.now() - last.at < RETRY_MS) return;
    this.inFlight.add(modelId);
    this.loader(src, this.logger).then(
      (tok) => {
        this.inFlight.delete(modelId);
        this.failures.delete(modelId);
        this.registry.register(modelId, tok);
        this.logger.info(`Tokenizer registered for model ${modelId} (source ${src.source})`);
        this.onSettled(modelId);
      },
      (err: unknown) => {
        this.inFlight.delete(modelId);
        this.failures.set(modelId, { message: (err as Error).message, at: Date.now() });
        this.logger.error(`Failed to load tokenizer for model ${modelId} from ${src.source}: ${(err as Error).message}`);
        this.onSettled(modelId);
      },
    );
  }
}
