import { AppError, resolveTarget, SafeFetchError, type SafeFetchPolicy } from "@imprint/runtime";

/**
 * A repository URL as a caller gave it, split into what may be shown and stored (the URL without
 * credentials) and what may not (the basic-auth header built from them).
 */
export interface GitRemote {
  /** The URL without user name and password: the only form logged, stored and answered. */
  url: URL;
  /** `Authorization: Basic …` value when the URL carried credentials. Never logged nor stored. */
  authorization: string | undefined;
}

export const MAX_URL_LENGTH = 2048;

/**
 * Parses a repository URL: https always, http only where private fetches are allowed (tests and
 * closed networks); no other scheme (no ssh, file, git or ext transports). Credentials in the URL
 * become a basic-auth header and are removed from the URL.
 */
export function parseRemote(value: string, options: { allowHttp: boolean }): GitRemote {
  const trimmed = value.trim();
  if (trimmed === "") throw AppError.invalidArgument("url: is required");
  if (trimmed.length > MAX_URL_LENGTH) throw AppError.invalidArgument(`url: must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw AppError.invalidArgument("url: must be an absolute https URL of a Git repository");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && options.allowHttp)) {
    throw AppError.invalidArgument(
      url.protocol === "http:"
        ? "url: http is only allowed when IMPRINT_ALLOW_PRIVATE_FETCH=true; use https"
        : `url: scheme ${url.protocol.replace(/:$/, "")} is not allowed (only https)`,
    );
  }
  if (url.search || url.hash) throw AppError.invalidArgument("url: must not have a query string or a fragment");
  let authorization: string | undefined;
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    url.username = "";
    url.password = "";
  }
  return { url, authorization };
}

/** The URL as shown and stored: without credentials, query or fragment. */
export function displayUrl(remote: GitRemote): string {
  return remote.url.toString();
}

/**
 * Resolves the host and checks every address with the fetch guard's rule (the runtime's safe-fetch); answers
 * the libcurl `--resolve` entry that pins git's connection to the checked address, so a second
 * resolution (DNS rebinding) cannot send it elsewhere.
 */
export async function pinnedResolve(remote: GitRemote, policy: SafeFetchPolicy): Promise<string> {
  try {
    const target = await resolveTarget(remote.url, policy);
    const host = remote.url.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = remote.url.port || (remote.url.protocol === "https:" ? "443" : "80");
    const address = target.family === 6 ? `[${target.address}]` : target.address;
    return `${host.includes(":") ? `[${host}]` : host}:${port}:${address}`;
  } catch (error) {
    if (error instanceof SafeFetchError) throw AppError.invalidArgument(`url: ${error.reason}`);
    throw error;
  }
}

/** A ref as given ("refs/heads/main", or a bare branch name), checked like git's check-ref-format. */
export function parseGitRef(value: string): string {
  const trimmed = value.trim();
  if (trimmed === "") throw AppError.invalidArgument("ref: is required");
  const ref = trimmed.startsWith("refs/") ? trimmed : `refs/heads/${trimmed}`;
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\/|\/\.|\.lock(\/|$)|^-|\/-|\/$|\.$/;
  if (ref.length > 255 || bad.test(ref)) throw AppError.invalidArgument('ref: must be a Git ref such as "refs/heads/main"');
  return ref;
}

/** A project directory inside the repository: relative, normalized, no "..". Empty for the root. */
export function parseProjectDirectory(value: string): string {
  const parts = value
    .trim()
    .split("/")
    .filter((part) => part !== "" && part !== ".");
  if (parts.some((part) => part === ".." || part.startsWith(".git"))) {
    throw AppError.invalidArgument("repoProjectDirectory: must be a folder inside the repository");
  }
  const directory = parts.join("/");
  if (directory.length > 255) throw AppError.invalidArgument("repoProjectDirectory: must be at most 255 characters");
  return directory;
}
