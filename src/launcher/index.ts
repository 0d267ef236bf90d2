/** The launcher layer of `smg serve`: pure planning, supervision policy, and the process seam. */
export { splitServeArgv, type FlagValue, type SplitArgv, type SplitOptions, type SplitResult } from './argv-split.js';
export { ROUTER_FLAGS, SERVE_FLAGS, type FlagArity, type FlagSpec } from './serve-flags.js';
export {
  parseServeArgs,
  TOKENSPEED_ZMQ_ONLY,
  type Backend,
  type ConnectionMode,
  type ServeConfig,
  type ServeParse,
  type ServeParseOptions,
} from './serve-config.js';
export { filterOwnedArgs, keyOf, readEngineInt, readEngineValue, suppliedKeys } from './engine-args.js';
export {
  buildTokenspeedCommand,
  buildVllmCommand,
  engineDataParallelSize,
  TOKENSPEED_DEFAULTS,
  TOKENSPEED_OWNED_FLAGS,
  VLLM_OWNED_FLAGS,
} from './engine-command.js';
export { assertNoHandshakeCollision, distInitPort, findWorkerPorts, isPortAvailable, zmqIpcUrl, zmqSocketDir } from './ports.js';
export { engineEnv, gpuDevicesFor, type GpuSliceInput } from './gpu-slices.js';
export { launchedLine, launchingLine, planEngines, type EnginePlan, type PlanOptions } from './engine-plan.js';
export { buildGatewayConfig, toLaunchArgv, type GatewayConfigResult, type LogLine, type ServeGatewayConfig } from './gateway-config.js';
export { LaunchError, usageError, type UsageError } from './launch-error.js';
export type { ChildHandle, ExitInfo, KillGroupFn, LogFn, SpawnFn, SpawnOptions } from './engine-process.js';
export { Supervisor, SHUTDOWN_DEADLINE_MS, type EngineExitEvent, type EngineRestartEvent, type SupervisorOptions } from './supervisor.js';
export { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './restart-backoff.js';
export { ShutdownController, signalExitCode, type EngineStopper } from './shutdown-controller.js';
export { installSignalHandlers, SHUTDOWN_SIGNALS } from './signals.js';
export { killProcessGroup, spawnEngine } from './spawn-engine.js';
export { createStartupDisplay, spinnerEnabled, type StartupDisplay } from './startup-display.js';
