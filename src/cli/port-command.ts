import yargs from 'yargs';
import { handshakeAddressFor, handshakePortFor } from '../engine/fnv-port.js';

const USAGE = `Usage: smg port <ipc-url> [<ipc-url> ...]

Print the TCP handshake port the gateway derives from each worker URL
(20000 + FNV-1a-64(path) mod 10000). Start the engine with
  --data-parallel-address 127.0.0.1 --data-parallel-rpc-port <port>

Options:
  --address  Print the full tcp:// handshake address instead of the port
  -h, --help Show this help`;

export async function runPort(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let parsed: { address: boolean; urls?: string[] };
  try {
    parsed = await yargs(argv)
      .scriptName('smg port')
      .command('$0 [urls..]', false)
      .positional('urls', { type: 'string', array: true })
      .option('address', { type: 'boolean', default: false })
      .help(false)
      .version(false)
      .strict()
      .exitProcess(false)
      .fail((msg, err) => {
        throw err ?? new Error(msg);
      })
      .parserConfiguration({ 'parse-positional-numbers': false })
      .parseAsync();
  } catch (err) {
    process.stderr.write(`smg port: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const urls = (parsed.urls ?? []).map(String);
  if (urls.length === 0) {
    process.stderr.write(`smg port: missing <ipc-url>\n\n${USAGE}\n`);
    return 2;
  }
  for (const url of urls) {
    if (url.includes('://') && !url.startsWith('ipc://')) {
      process.stderr.write(`smg port: ZMQ worker URL must be ipc://<path>, got '${url}'\n`);
      return 2;
    }
    process.stdout.write(`${parsed.address ? handshakeAddressFor(url) : handshakePortFor(url)}\n`);
  }
  return 0;
}
