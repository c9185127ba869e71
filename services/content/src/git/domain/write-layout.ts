import { posix } from "node:path";
import { INCLUDE_PATH } from "@imprint/document";
import type { FileRecord, PageIndex, PageRecord } from "../../revisions/index.js";
import { slugOf } from "../../import/index.js";
import { findLinkSites, rewriteLinkSites, writeIncludeFile, writePageFile, type LinkSite, type LinkSitesOf } from "./markdown-text.js";

/**
 * Writes a revision's content in GitBook's Git Sync layout: a folder per page with sub-pages
 * (`<slug>/README.md`), a file per other page (`<slug>.md`), a folder per group, SUMMARY.md for
 * the tree (groups as `##` headings, link pages as links to their URL), `.gitbook.yaml` naming the
 * summary and the first page as readme, the files under `.gitbook/assets/` and the reusable
 * contents under `.gitbook/includes/` (named by their titles). Page, file and reusable content
 * references in the bodies become relative links.
 */

export interface WrittenFile {
  path: string;
  content: Buffer;
}

export interface WrittenLayout {
  files: WrittenFile[];
  /** Repository path (in the project directory) → page id, for the pages written to a file. */
  pages: Record<string, string>;
  /** Repository path → file id. */
  assets: Record<string, string>;
}

const PAGE_REFERENCE = /^\/pages\/([A-Za-z0-9_-]{1,64})(?:#(.+))?$/;
const FILE_REFERENCE = /^\/files\/([A-Za-z0-9_-]{1,64})$/;

function encodePath(path: string): string {
  return path
    .split("/")
    .map((part) => encodeURIComponent(part).replace(/%2F/g, "/"))
    .join("/");
}

function relativeLink(fromFile: string, toPath: string): string {
  const relative = posix.relative(posix.dirname(fromFile), toPath) || posix.basename(toPath);
  return encodePath(relative);
}

function uniqueAssetName(name: string, taken: Set<string>): string {
  let candidate = name;
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const extension = dot > 0 ? name.slice(dot) : "";
  for (let suffix = 1; taken.has(candidate.toLowerCase()); suffix += 1) candidate = `${stem}-${suffix}${extension}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** The name of a reusable content's file in `.gitbook/includes/` (before `.md`): its title as a slug, as GitBook names it. */
export function includeFileStem(reusable: { reusableContentId: string; title: string }): string {
  return slugOf(reusable.title) || reusable.reusableContentId;
}

/** A reusable content as export writes it. */
export interface WrittenReusable {
  reusableContentId: string;
  title: string;
  markdown: string;
  /** Its body's id (the markdown's hash), when it has one. */
  bodyId?: string | null;
}

export type { LinkSitesOf };

/** What the kept link sites of the bodies exports read may take (a 1,000-page space's: well under 1 MB). */
export const LINK_SITES_CACHE_BYTES = 8 * 1024 * 1024;
export const linkSitesBytes = (sites: readonly LinkSite[]) => 64 + sites.reduce((sum, site) => sum + 48 + 2 * site.url.length, 0);

/**
 * Link sites kept in `kept` under the key naming their text (a hash of it, so they never change):
 * an export after a merge, or an import of a push, parses the texts that changed, not every page's.
 */
export function keptLinkSites(kept: { get(key: string): readonly LinkSite[] | undefined; set(key: string, sites: readonly LinkSite[]): void }): LinkSitesOf {
  return (key, markdown) => {
    if (!key) return findLinkSites(markdown);
    const found = kept.get(key);
    if (found) return found;
    const sites = findLinkSites(markdown);
    kept.set(key, sites);
    return sites;
  };
}

export function writeLayout(input: {
  index: PageIndex;
  bodies: Map<string, string>;
  files: FileRecord[];
  fileBytes: Map<string, Buffer>;
  reusables: WrittenReusable[];
  /** How bodies' link sites are found; default: found anew. */
  linkSites?: LinkSitesOf;
}): WrittenLayout {
  const sitesOf: LinkSitesOf = input.linkSites ?? ((_, markdown) => findLinkSites(markdown));
  const { index } = input;
  const pagePath = new Map<string, string>();
  const ordered: PageRecord[] = [];

  // Paths first (links need every target's path).
  const place = (parentKey: string, folder: string) => {
    for (const id of index.children.get(parentKey) ?? []) {
      const page = index.byId.get(id);
      if (!page) continue;
      ordered.push(page);
      const here = folder ? `${folder}/${page.slug}` : page.slug;
      const hasChildren = (index.children.get(id) ?? []).length > 0;
      if (page.type === "document") pagePath.set(id, hasChildren ? `${here}/README.md` : `${here}.md`);
      place(id, here);
    }
  };
  place("", "");

  const assetPath = new Map<string, string>();
  const takenNames = new Set<string>();
  const written: WrittenFile[] = [];
  const assets: Record<string, string> = {};
  for (const file of [...input.files].sort((a, b) => (a.fileId < b.fileId ? -1 : 1))) {
    const bytes = input.fileBytes.get(file.fileId);
    if (!bytes) continue;
    const path = `.gitbook/assets/${uniqueAssetName(file.name, takenNames)}`;
    assetPath.set(file.fileId, path);
    assets[path] = file.fileId;
    written.push({ path, content: bytes });
  }

  const includePath = new Map<string, string>();
  const takenIncludes = new Set<string>();
  for (const reusable of [...input.reusables].sort((a, b) => (a.reusableContentId < b.reusableContentId ? -1 : 1))) {
    includePath.set(reusable.reusableContentId, `.gitbook/includes/${uniqueAssetName(`${includeFileStem(reusable)}.md`, takenIncludes)}`);
  }

  // Page, file and reusable content references in a body as links relative to the file at `path`.
  const relativeBody = (path: string, markdown: string, bodyId: string | null | undefined) =>
    rewriteLinkSites(markdown, sitesOf(bodyId && `body:${bodyId}`, markdown), (url) => {
      const pageRef = PAGE_REFERENCE.exec(url);
      if (pageRef) {
        const target = pagePath.get(pageRef[1]!);
        return target ? `${relativeLink(path, target)}${pageRef[2] ? `#${pageRef[2]}` : ""}` : undefined;
      }
      const fileRef = FILE_REFERENCE.exec(url);
      if (fileRef) {
        const target = assetPath.get(fileRef[1]!);
        return target ? relativeLink(path, target) : undefined;
      }
      const includeRef = INCLUDE_PATH.exec(url);
      if (includeRef) {
        const target = includePath.get(includeRef[1]!);
        return target ? relativeLink(path, target) : undefined;
      }
      return undefined;
    });
  for (const reusable of input.reusables) {
    const path = includePath.get(reusable.reusableContentId)!;
    written.push({
      path,
      content: Buffer.from(writeIncludeFile({ title: reusable.title, body: relativeBody(path, reusable.markdown, reusable.bodyId) }), "utf8"),
    });
  }

  const pages: Record<string, string> = {};
  for (const page of ordered) {
    const path = pagePath.get(page.pageId);
    if (!path) continue;
    const body = relativeBody(path, input.bodies.get(page.pageId) ?? "", page.bodyId);
    written.push({
      path,
      content: Buffer.from(writePageFile({ title: page.title, description: page.description, icon: page.icon, hidden: page.hidden, body }), "utf8"),
    });
    pages[path] = page.pageId;
  }

  // SUMMARY.md: top-level pages and groups; sub-pages nested by two spaces.
  const lines: string[] = ["# Table of contents", ""];
  const listed = (parentKey: string, depth: number) => {
    for (const id of index.children.get(parentKey) ?? []) {
      const page = index.byId.get(id);
      if (!page) continue;
      const indent = "  ".repeat(depth);
      const title = page.title.replace(/([[\]\\])/g, "\\$1");
      if (page.type === "link") lines.push(`${indent}* [${title}](${page.href ?? ""})`);
      else if (page.type === "document") lines.push(`${indent}* [${title}](${encodePath(pagePath.get(id)!)})`);
      if (page.type !== "group") listed(id, depth + 1);
    }
  };
  const top = index.children.get("") ?? [];
  // A top-level page after a group cannot be told apart from the group's pages in SUMMARY.md (as in GitBook).
  for (const id of top) {
    const page = index.byId.get(id);
    if (!page) continue;
    if (page.type === "group") {
      lines.push("", `## ${page.title.replace(/\r?\n/g, " ")} <a href="#${page.slug}" id="${page.slug}"></a>`, "");
      listed(id, 0);
      continue;
    }
    const title = page.title.replace(/([[\]\\])/g, "\\$1");
    if (page.type === "link") lines.push(`* [${title}](${page.href ?? ""})`);
    else lines.push(`* [${title}](${encodePath(pagePath.get(id)!)})`);
    listed(id, 1);
  }
  written.push({ path: "SUMMARY.md", content: Buffer.from(`${lines.join("\n")}\n`, "utf8") });

  const firstDocument = ordered.find((page) => page.type === "document");
  const readme = firstDocument ? pagePath.get(firstDocument.pageId)! : "README.md";
  written.push({ path: ".gitbook.yaml", content: Buffer.from(`root: ./\n\nstructure:\n  readme: ${readme}\n  summary: SUMMARY.md\n`, "utf8") });
  return { files: written, pages, assets };
}
