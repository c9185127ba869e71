import type { PublishedGitSource } from "@imprint/proto/content/v1/published";

/**
 * "Edit on GitHub/GitLab" links: where a page's markdown file is edited in the repository its space
 * is synced with, when the repository's host is one whose web editor the reader knows (GitHub,
 * GitLab, Gitea and Forgejo, by their host names); none for any other host, a page the last sync did
 * not write, or a site whose page actions leave out `git`.
 */

export type GitHost = "GitHub" | "GitLab" | "Gitea";

export interface EditLink {
  url: string;
  host: GitHost;
}

/** The host's product, from the repository's host name; undefined when not recognisable. */
function hostOf(hostname: string): GitHost | undefined {
  if (hostname === "github.com" || hostname.startsWith("github.")) return "GitHub";
  if (hostname === "gitlab.com" || hostname.startsWith("gitlab.")) return "GitLab";
  if (hostname === "codeberg.org" || /(^|\.)(gitea|forgejo)\./.test(`.${hostname}`)) return "Gitea";
  return undefined;
}

/** The repository's web address from its clone URL (https, or scp-like SSH `git@host:owner/repo.git`). */
function webRepository(url: string): URL | undefined {
  const ssh = /^(?:ssh:\/\/)?[\w.-]+@([\w.-]+)[:/](.+)$/.exec(url);
  try {
    const parsed = new URL(ssh ? `https://${ssh[1]}/${ssh[2]}` : url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    parsed.hash = "";
    parsed.pathname = parsed.pathname.replace(/\/+$/, "").replace(/\.git$/, "");
    return parsed.pathname.split("/").filter(Boolean).length >= 2 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const encodePath = (path: string) => path.split("/").filter(Boolean).map(encodeURIComponent).join("/");

/** The edit link of a page of a space synced with `source`; undefined when there is none. */
export function editLinkOf(source: PublishedGitSource | undefined, pageId: string): EditLink | undefined {
  const path = source?.pagePaths[pageId];
  if (!source || !path || !source.gitRef) return undefined;
  const repository = webRepository(source.url);
  const host = repository ? hostOf(repository.hostname.toLowerCase()) : undefined;
  if (!repository || !host) return undefined;
  const ref = encodePath(source.gitRef.replace(/^refs\/heads\//, ""));
  const base = `${repository.origin}${repository.pathname}`;
  const editor = host === "GitHub" ? "edit" : host === "GitLab" ? "-/edit" : "_edit";
  return { url: `${base}/${editor}/${ref}/${encodePath(path)}`, host };
}

/** Whether the site's page actions offer the edit link: GitBook's `pageActions.items` naming `git`, or no list at all. */
export function offersEditLink(customizationJson: string): boolean {
  const items = (JSON.parse(customizationJson || "{}") as { pageActions?: { items?: unknown } }).pageActions?.items;
  return !Array.isArray(items) || items.includes("git");
}
