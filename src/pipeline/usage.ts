/** Usage over the choices of one prompt (request-pipeline §13): prompt = max, completion = sum. */
export class UsageTally {
  private readonly prompt = new Map<number, number>();
  private readonly cached = new Map<number, number>();
  completionTokens = 0;

  /** `group` identifies the prompt (completions batches); chat has one. */
  add(group: number, promptTokens: number, completionTokens: number, cachedTokens: number): void {
    this.prompt.set(group, Math.max(this.prompt.get(group) ?? 0, promptTokens));
    this.cached.set(group, Math.max(this.cached.get(group) ?? 0, cachedTokens));
    this.completionTokens += completionTokens;
  }

  toJSON(withCached: boolean): Record<string, unknown> {
    let prompt = 0;
    for (const v of this.prompt.values()) prompt += v;
    let cached = 0;
    for (const v of this.cached.values()) cached += v;
    const usage: Record<string, unknown> = {
      prompt_tokens: prompt,
      completion_tokens: this.completionTokens,
      total_tokens: prompt + this.completionTokens,
    };
    if (withCached && cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
    return usage;
  }
}
