import { packageVersion } from '../util/version.js';
import { runPort } from './port-command.js';

/**
 * `smg <command>`: each command owns its argv. Serve and mock-engine must see engine flags verbatim,
 * so the top level only picks the command and never parses the rest.
 *
 * `smg mock-engine` is a test double, not part of the product: the entry point (bin/smg.js) plugs
 * it in through `extra`, so no production module imports src/mock-engine/.
 */
export interface CommandEntry {
  summary: string;
  run: (argv: string[]) => Promise<number>;
}

const commands: Record<string, CommandEntry> = {
  serve: {
    summary: 'Start headless engines and the gateway together',
    run: async (argv) => (await import('./serve-command.js')).runServe(argv),
  },
  launch: {
    summary: 'Run the gateway alone against engines started elsewhere',
    run: async (argv) => (await import('./launch-command.js')).runLaunch(argv),
  },
  port: {
    summary: 'Print the handshake port derived from an ipc:// worker URL',
    run: async (argv) => runPort(argv),
  },
  demo: {
    summary: 'Serve a built-in model on mock engines and show a chat completion',
    run: async (argv) => (await import('./demo-command.js')).runDemo(argv),
  },
};

export function version(): string {
  return packageVersion();
}

export function topLevelHelp(extra: Readonly<Record<string, CommandEntry>> = {}): string {
  const all = withExtra(extra);
  const width = Math.max(...Object.keys(all).map((c) => c.length));
  const lines = Object.entries(all).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: smg <command> [options]',
    '',
    'A gateway and process supervisor that serves LLMs by talking token ids straight to',
    'headless vLLM and TokenSpeed engines over ZeroMQ.',
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    '  -h, --help     Show this help (or `smg <command> --help`)',
    '  -V, --version  Print the version',
    '',
  ].join('\n');
}

/** Extra commands are listed right after `launch`, the two commands they are usually run with. */
function withExtra(extra: Readonly<Record<string, CommandEntry>>): Record<string, CommandEntry> {
  const { serve, launch, ...rest } = commands;
  return { serve, launch, ...extra, ...rest };
}

export async function main(argv: string[], extra: Readonly<Record<string, CommandEntry>> = {}): Promise<void> {
  const all = withExtra(extra);
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-V') {
    process.stdout.write(`smg ${version()}\n`);
    return;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(topLevelHelp(extra));
    return;
  }
  const entry = first === undefined ? undefined : all[first];
  if (!entry) {
    process.stderr.write(first === undefined ? 'smg: no command given\n\n' : `smg: unknown command '${first}'\n\n`);
    process.stderr.write(topLevelHelp(extra));
    // A usage error (README: usage errors exit 2).
    process.exitCode = 2;
    return;
  }
  const code = await entry.run(rest);
  // Long-running commands resolve only when they are done; sockets may keep the loop alive otherwise.
  process.exit(code);
}
