/**
 * The app's one way to call the API: same origin (the gateway forwards the app's paths to the app
 * and answers /v1 itself), the session cookie, `X-CSRF-Token` on every state change and an
 * `Idempotency-Key` on every write. Every refusal becomes an ApiError with a message for people.
 */

/** A refused call: the API's `{"error":{code,message}}`, its status and, for 429, the seconds to wait. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The signed-in person, as `GET /v1/auth/session` answers. */
export interface Session {
  user: { id: string; displayName: string; email?: string; photoURL?: string };
  csrfToken: string;
  expiresAt: string;
  method: string;
}

let csrfToken: string | undefined;

/** Remembers the session's CSRF token (after a sign-in or a session read); undefined after signing out. */
export function rememberCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The cookie's session, or null without one (401). */
export async function readSession(): Promise<Session | null> {
  try {
    const session = await api<Session>("GET", "/v1/auth/session");
    rememberCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      rememberCsrfToken(undefined);
      return null;
    }
    throw error;
  }
}

function waitWords(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

async function errorOf(response: Response): Promise<ApiError> {
  let code = "unknown";
  let message = `The server answered ${response.status}.`;
  try {
    const body = (await response.json()) as { error?: { code?: number | string; message?: string } };
    if (body.error?.code !== undefined) code = String(body.error.code);
    if (body.error?.message) message = body.error.message;
  } catch {
    // Not the API's JSON (a proxy's page): the status says enough.
  }
  if (response.status === 429) {
    const seconds = Number(response.headers.get("Retry-After"));
    if (Number.isFinite(seconds) && seconds > 0) return new ApiError(429, code, `${message} Try again in ${waitWords(seconds)}.`, seconds);
  }
  return new ApiError(response.status, code, message);
}

/** Calls the API at `path` (starting with /v1/); the answer's JSON, or undefined for 204/205. */
export async function api<T>(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (method !== "GET") {
    if (csrfToken === undefined && !path.startsWith("/v1/auth/")) await readSession();
    if (csrfToken) headers["X-CSRF-Token"] = csrfToken;
    headers["Idempotency-Key"] = crypto.randomUUID();
  }
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, "network", "Imprint could not be reached. Check your connection and try again.");
  }
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204 || response.status === 205) return undefined as T;
  return (await response.json()) as T;
}

/** A page of a list: GitBook's `{items, next?}`. */
export interface Page<T> {
  items: T[];
  next?: { page: string };
}

/** Every item of a paginated list, page after page. */
export async function all<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  let page: string | undefined;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const answer = await api<Page<T>>("GET", page ? `${path}${separator}page=${encodeURIComponent(page)}` : path);
    items.push(...answer.items);
    page = answer.next?.page;
  } while (page);
  return items;
}
