/**
 * Which engine `smg mock-engine` simulates. Either explicit (`--backend tokenspeed|vllm`, which a
 * Python shim can prepend without understanding the rest) or implied by the entry point a real
 * launcher would run (`-m tokenspeed.cli`, `ts serve`, …), so the engine argv can be forwarded as is.
 */
import { ArgsError } from '../mock-flags.js';

export type MockBackend = 'vllm' | 'tokenspeed';

const TOKENSPEED_MODULES = new Set(['tokenspeed.cli', 'tokenspeed.runtime.entrypoints.engine']);
const TOKENSPEED_PROGRAMS = new Set(['ts', 'tokenspeed']);

export function pickMockBackend(argv: string[]): { backend: MockBackend; argv: string[] } {
  const rest: string[] = [];
  let explicit: MockBackend | null = null;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i];
    let value: string | undefined;
    if (tok === '--backend') value = argv[++i];
    else if (tok.startsWith('--backend=')) value = tok.slice('--backend='.length);
    else {
      rest.push(tok);
      continue;
    }
    if (value !== 'vllm' && value !== 'tokenspeed') {
      throw new ArgsError(`--backend: expected one of vllm, tokenspeed, got '${value ?? ''}'`);
    }
    explicit = value;
  }
  return { backend: explicit ?? impliedBackend(rest), argv: rest };
}

/** The leading non-flag tokens (and `-m <module>`) name the program a launcher meant to start. */
function impliedBackend(argv: string[]): MockBackend {
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i];
    if (tok === '-m') return TOKENSPEED_MODULES.has(argv[i + 1] ?? '') ? 'tokenspeed' : 'vllm';
    if (tok === 'serve' || tok.startsWith('-')) break;
    if (TOKENSPEED_PROGRAMS.has(tok)) return 'tokenspeed';
  }
  return 'vllm';
}
