/**
 * Per-replica GPU assignment through CUDA_VISIBLE_DEVICES (spec cli-and-api §2.5).
 *
 * Divergence from SMG (documented gap there): a grouped engine, i.e. one running E data-parallel
 * ranks of tp GPUs each, gets E × tp devices; SMG hands it only tp.
 */
import { LaunchError } from './launch-error.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface GpuSliceInput {
  /** Replica index, 0-based, in worker-port order. */
  readonly rank: number;
  readonly tensorParallelSize: number;
  /** Engine-level DP size of this replica's (grouped) engine; default 1. */
  readonly engineDataParallelSize?: number;
  /** The launcher's environment; copied, never mutated. Defaults to process.env. */
  readonly baseEnv?: Env;
}

export interface EngineEnv {
  readonly env: Record<string, string | undefined>;
  readonly devices: readonly string[];
}

/**
 * Devices for one replica: a window of an existing CUDA_VISIBLE_DEVICES pool (entries kept as
 * strings, so UUIDs work), or sequential ids when the variable is unset or empty.
 */
export function gpuDevicesFor(input: GpuSliceInput): string[] {
  const tp = input.tensorParallelSize;
  if (!(tp > 0)) throw new LaunchError(`tp_size must be positive, got ${tp}`);
  const engineDp = input.engineDataParallelSize ?? 1;
  const width = tp * engineDp;
  const start = input.rank * width;

  const raw = (input.baseEnv ?? process.env).CUDA_VISIBLE_DEVICES;
  const pool = (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (pool.length === 0) return Array.from({ length: width }, (_, k) => String(start + k));

  if (start + width > pool.length) {
    const grouped = engineDp > 1 ? ` and engine data-parallel size ${engineDp}` : '';
    throw new LaunchError(
      `CUDA_VISIBLE_DEVICES has ${pool.length} GPU(s) but dp_rank=${input.rank} with tp_size=${tp}${grouped} ` +
        `requires index ${start}..${start + width - 1}`,
    );
  }
  return pool.slice(start, start + width);
}

/** The child's environment: inherited vars, its GPU slice, and unbuffered Python output. */
export function engineEnv(input: GpuSliceInput): EngineEnv {
  const devices = gpuDevicesFor(input);
  const env = { ...(input.baseEnv ?? process.env), CUDA_VISIBLE_DEVICES: devices.join(','), PYTHONUNBUFFERED: '1' };
  return { env, devices };
}
