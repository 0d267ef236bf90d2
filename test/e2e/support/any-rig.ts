/**
 * One gateway and one mock engine of either dialect behind the same small interface, so a test
 * file can run the same flows against vLLM and TokenSpeed (`describe.each(BACKENDS)`), plus a
 * replies file for `--mock-replies` (the simulated model answers a chosen text per prompt).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type OpenAI from 'openai';
import type { ReplyRule } from '../../../src/mock-engine/replies.js';
import { startRig } from './rig.js';
import { startTsRig } from './tokenspeed-rig.js';

export const BACKENDS = ['vllm', 'tokenspeed'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface AnyRig {
  backend: Backend;
  model: string;
  /** `http://127.0.0.1:<port>` */
  gatewayURL: string;
  openai: OpenAI;
  engineLines(): readonly string[];
  gatewayOutput(): string;
  stop(): Promise<void>;
}

export interface AnyRigOptions {
  replies?: ReplyRule[];
  engineArgs?: string[];
  gatewayArgs?: string[];
  modelDir?: (dir: string) => Promise<string>;
}

export async function startAnyRig(backend: Backend, opts: AnyRigOptions = {}): Promise<AnyRig> {
  const engineArgs = [...(opts.engineArgs ?? [])];
  if (opts.replies) {
    const file = join(await mkdtemp(join(tmpdir(), 'smg-replies-')), 'replies.json');
    await writeFile(file, JSON.stringify(opts.replies));
    engineArgs.push('--mock-replies', file);
  }
  if (backend === 'vllm') {
    const rig = await startRig({ engineArgs, gatewayArgs: opts.gatewayArgs, modelDir: opts.modelDir });
    return {
      backend,
      model: rig.model,
      gatewayURL: rig.gatewayURL,
      openai: rig.openai,
      engineLines: () => rig.engine.lines,
      gatewayOutput: rig.gatewayOutput,
      stop: rig.stop,
    };
  }
  const rig = await startTsRig({ engineArgs, gatewayArgs: opts.gatewayArgs, modelDir: opts.modelDir });
  return {
    backend,
    model: rig.model,
    gatewayURL: rig.gatewayURL,
    openai: rig.openai,
    engineLines: () => rig.engine.lines,
    gatewayOutput: () => rig.gateway.output(),
    stop: () => rig.stop(),
  };
}
