/**
 * The launcher layer of `smg serve`: pure planning, supervision policy, the process seam, and the
 * shutdown path both commands share. It takes typed configuration; argv parsing is the CLI's
 * (src/cli/serve/, src/cli/flags/).
 */
export { filterOwnedArgs, keyOf, readEngineInt, readEngineValue, suppliedKeys } from './engine-args.js';
export {
  buildTokenspeedCommand,
  buildVllmCommand,
  engineDataParallelSize,
  TOKENSPEED_DEFAULTS,
  TOKENSPEED_OWNED_FLAGS,
  VLLM_OWNED_FLAGS,
} from './engine-command.js';
export { assertNoHandshakeCollision, distInitPort, findWorkerPorts, freeTcpPort, isPortAvailable, zmqIpcUrl, zmqSocketDir } from './ports.js';
export { engineEnv, gpuDevicesFor, type GpuSliceInput } from './gpu-slices.js';
export { launchedLine, launchingLine, planEngines, type EnginePlan, type PlanConfig, type PlanOptions } from './engine-plan.js';
export { LaunchError, usageError, type UsageError } from './launch-error.js';
export type { ChildHandle, ExitInfo, KillGroupFn, LogFn, SpawnFn, SpawnOptions } from './engine-process.js';
export { Supervisor, SHUTDOWN_DEADLINE_MS, STOP_ENGINE_GRACE_MS, type EngineExitEvent, type EngineRestartEvent, type SupervisorOptions } from './supervisor.js';
export { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './restart-backoff.js';
export { REPEAT_SIGNAL_WINDOW_MS, ShutdownController, signalExitCode, type EngineStopper, type ShutdownControllerOptions } from './shutdown-controller.js';
export { exitWithParentWanted, GATEWAY_SIGNALS, installSignalHandlers, SHUTDOWN_SIGNALS, type SignalWiring } from './signals.js';
export { killProcessGroup, spawnEngine } from './spawn-engine.js';
export { createStartupDisplay, spinnerEnabled, type StartupDisplay } from './startup-display.js';
export { EngineGuard, socketFilesOf, type EngineGuardOptions } from './engine-guard.js';
export { OutputTail } from './output-tail.js';
export { isRunning, processRef, type ProcessRef } from './process-identity.js';
export { REAPER_SCRIPT, startReaper, type ReaperSpec, type StartReaperFn } from './reaper.js';
export { sweepStaleClaims } from './stale-engines.js';
export { claimFilePath, readClaim, WorkerClaims, type WorkerClaim } from './worker-claims.js';
export { workerPortCheck } from './worker-port-check.js';
