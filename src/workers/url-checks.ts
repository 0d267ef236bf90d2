/**
 * Synchronous worker-URL checks the API runs before queueing a job (400 BAD_REQUEST texts) and
 * the startup config runs on --worker-urls.
 */

const SCHEMES = ['http://', 'https://', 'grpc://', 'grpcs://', 'ipc://'];

function invalid(url: string, reason: string): string {
  return `Invalid value for field 'worker_url': ${url} - ${reason}`;
}

/** Returns the error text for a bad URL, or null when the URL passes. */
export function checkWorkerUrl(url: string): string | null {
  if (url.trim() === '') return invalid(url, 'URL cannot be empty');
  // Case-sensitive on purpose: the scheme decides the connection mode and must be lowercase.
  const scheme = SCHEMES.find((s) => url.startsWith(s));
  if (!scheme) {
    return invalid(url, 'URL must start with a lowercase http://, https://, grpc://, grpcs://, or ipc:// scheme');
  }
  if (scheme === 'ipc://') {
    if (url.slice(scheme.length).trim() === '') return invalid(url, 'ipc:// worker URL must include a socket path');
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    return invalid(url, `Invalid URL format: ${(err as Error).message}`);
  }
  if (parsed.hostname === '') return invalid(url, 'URL must have a valid host');
  return null;
}

export type ConnectionMode = 'Zmq' | 'Http' | 'Grpc';

/** The scheme decides the mode; `connection_mode` in a spec is accepted but never overrides it. */
export function connectionModeOf(url: string): ConnectionMode {
  if (url.startsWith('ipc://')) return 'Zmq';
  if (url.startsWith('grpc://') || url.startsWith('grpcs://')) return 'Grpc';
  return 'Http';
}
