import type { GitConnectionSecrets } from "../../domain/git-sync.js";

/**
 * The connection's repository URL with its sealed credentials put back (for the import and export
 * use cases, which split them off again into a basic-auth header): never logged nor stored.
 */
export function connectionUrl(url: string, secrets: GitConnectionSecrets): string {
  if (!secrets.authorization?.startsWith("Basic ")) return url;
  const decoded = Buffer.from(secrets.authorization.slice("Basic ".length), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const withCredentials = new URL(url);
  withCredentials.username = encodeURIComponent(decoded.slice(0, colon));
  withCredentials.password = encodeURIComponent(decoded.slice(colon + 1));
  return withCredentials.toString();
}
