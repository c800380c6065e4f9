// The page's requests (web APIs only), all to its own server (which proxies /api and /apis): JSON in and out, and a failure as
// the API's Status message, which the page shows as it is (a 403 reads as the API server wrote it).

export interface Status {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
}

export class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export async function failure(res: Response): Promise<HttpError> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as Status;
    if (body.message) message = body.message;
  } catch {
    // Not JSON: the status line says enough.
  }
  return new HttpError(res.status, message);
}

export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export async function getJSON<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { headers: { accept: 'application/json' }, signal: signal ?? null });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

export async function postJSON<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { method: 'POST', headers: { accept: 'application/json' }, signal: signal ?? null });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}
