/**
 * `smg serve --dry-run`: what would run, as commands a user can paste into a shell. Each engine is
 * shown with the environment the launcher adds; the in-process gateway as the equivalent
 * `smg launch` command line.
 */
import type { EnginePlan } from '../../launcher/engine-plan.js';
import type { PreparedServe } from './prepare.js';

const SAFE = /^[\w@%+=:,./-]+$/;

export function shellQuote(token: string): string {
  if (token !== '' && SAFE.test(token)) return token;
  return `'${token.replaceAll("'", `'\\''`)}'`;
}

const shellLine = (tokens: readonly string[]): string => tokens.map(shellQuote).join(' ');

function engineBlock(plan: EnginePlan): string[] {
  const env = [`CUDA_VISIBLE_DEVICES=${plan.devices.join(',')}`, 'PYTHONUNBUFFERED=1'];
  return [
    `# ${plan.label}: worker ${plan.url}, handshake tcp://127.0.0.1:${plan.handshakePort}, worker port ${plan.workerPort}`,
    `${env.map(shellQuote).join(' ')} ${shellLine(plan.argv)}`,
  ];
}

export function dryRunText(prep: PreparedServe): string {
  const { config, gateway } = prep;
  const lines = [
    `# smg serve --dry-run: ${prep.plans.length} ${config.backend} engine(s), gateway on ${gateway.host}:${gateway.port}`,
    '',
    ...prep.plans.flatMap((p) => [...engineBlock(p), '']),
    '# gateway (runs in-process), equivalent to:',
    shellLine(['smg', 'launch', ...prep.gatewayArgv]),
    '',
    '# gateway configuration:',
    `#   workers: ${gateway.workerUrls.join(' ')}`,
    `#   backend: ${gateway.backend ?? 'unset'}, model path: ${gateway.modelPath ?? 'unset'}, engines per worker: ${gateway.zmqEngineCount ?? 1}`,
    `#   policy: ${gateway.policy}, metrics: ${gateway.prometheusHost}:${gateway.prometheusPort}, shutdown grace: ${gateway.shutdownGracePeriodSecs}s`,
    '',
  ];
  return lines.join('\n');
}
