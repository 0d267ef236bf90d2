// The shared flag table (src/cli/flags/): what `smg launch` and `smg serve` accept is exactly what
// their --help texts document, and each spelling means one thing per command.
import { describe, expect, it } from 'vitest';
import { ROUTER_PREFIX, spellings, type FlagDef } from '../../src/cli/flags/flag-def.js';
import { ALL_FLAGS, LAUNCH_FLAGS, ROUTER_FLAGS, SERVE_OWN_FLAGS } from '../../src/cli/flags/table.js';
import { parseLaunchArgv } from '../../src/cli/launch/args.js';
import { launchHelp } from '../../src/cli/launch/help.js';
import { splitServeArgv } from '../../src/cli/serve/argv-split.js';
import { serveHelp } from '../../src/cli/serve/help.js';

/** A value each flag accepts, as typed on the command line. */
function sampleArgs(def: FlagDef, spelling: string): string[] {
  switch (def.type) {
    case 'bool':
      return [spelling];
    case 'list':
      return [spelling, 'ipc:///tmp/smg-test/engine-1'];
    case 'int':
    case 'number':
      return [spelling, '2'];
    case 'string':
      return [spelling, def.choices?.[0] ?? 'x'];
  }
}

/** Help lines that name a flag: `  --a, --b <V>`. */
function documented(help: string): Set<string> {
  const out = new Set<string>();
  for (const line of help.split('\n')) {
    if (!/^ {2}-/.test(line)) continue;
    for (const m of line.matchAll(/(?:^|[ ,])(--?[a-z][a-z0-9-]*)/g)) out.add(m[1]);
  }
  return out;
}

describe('flag table', () => {
  it('no spelling is defined twice for the same command', () => {
    for (const [flags, prefix] of [[LAUNCH_FLAGS, ''], [SERVE_OWN_FLAGS, ''], [ROUTER_FLAGS, ROUTER_PREFIX]] as const) {
      const names = flags.flatMap((f) => spellings(f, prefix));
      expect(names.length).toBe(new Set(names).size);
    }
  });

  it('every row applies somewhere and every launch setting names a gateway config field', () => {
    for (const def of ALL_FLAGS) expect(def.applies.length, def.name).toBeGreaterThan(0);
    for (const def of LAUNCH_FLAGS) if (def.name !== 'help') expect(def.key, def.name).toBeDefined();
  });
});

describe('smg launch --help', () => {
  const help = launchHelp();
  const names = documented(help);

  it('documents every spelling smg launch accepts', () => {
    for (const def of LAUNCH_FLAGS) for (const s of spellings(def)) expect(names, s).toContain(s);
  });

  it('documents nothing smg launch rejects', () => {
    for (const name of names) {
      const def = LAUNCH_FLAGS.find((f) => spellings(f).includes(name));
      expect(def, name).toBeDefined();
      if (!def || def.name === 'help') continue;
      const r = parseLaunchArgv(sampleArgs(def, name));
      expect(r.kind, `${name}: ${r.kind === 'error' ? r.message : ''}`).toBe('config');
    }
  });

  it('does not list serve-only settings', () => {
    expect(names).not.toContain('--disable-arg-fallback');
    const r = parseLaunchArgv(['--disable-arg-fallback']);
    expect(r.kind === 'error' && r.message).toBe("unexpected argument '--disable-arg-fallback' found");
  });

  it('shows gateway defaults and choices', () => {
    expect(help).toMatch(/ {2}--port <PORT>\n {6}Listen port \[default: 30000\]/);
    expect(help).toContain('least_load, passthrough, consistent_hashing, prefix_hash, manual) [default: cache_aware]');
  });
});

describe('smg serve --help', () => {
  const help = serveHelp();
  const names = documented(help);

  it('documents every serve flag and every --router- flag, and splits each of them out of argv', () => {
    for (const def of SERVE_OWN_FLAGS) {
      for (const s of spellings(def)) {
        expect(names, s).toContain(s);
        const r = splitServeArgv(sampleArgs(def, s));
        expect(r.ok && r.split.serve[def.name] !== undefined, s).toBe(true);
      }
    }
    for (const def of ROUTER_FLAGS) {
      for (const s of spellings(def, ROUTER_PREFIX)) {
        expect(names, s).toContain(s);
        const r = splitServeArgv(sampleArgs(def, s));
        expect(r.ok && r.split.router[def.name] !== undefined && r.split.engineArgs.length === 0, s).toBe(true);
      }
    }
  });

  it('documents every smg launch flag in its --router- form except --host/--port and pod discovery', () => {
    for (const def of LAUNCH_FLAGS) {
      if (def.name === 'help') continue;
      const routed = `--router-${def.name}`;
      // serve's gateway fronts its own engines; discovering hosts is the front tier's job.
      if (def.name === 'host' || def.name === 'port' || def.group === 'Discovery') expect(names).not.toContain(routed);
      else expect(names, routed).toContain(routed);
    }
  });

  it('shows serve defaults and where serve overrides the gateway', () => {
    expect(help).toMatch(/ {2}--port <PORT>\n {6}Gateway port \[default: 8080\]/);
    expect(help).toMatch(/ {2}-h, --help\n/);
    expect(help).toContain('forced to passthrough when --dp-size is 1');
  });
});
