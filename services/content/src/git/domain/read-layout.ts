import { posix } from "node:path";
import { AppError } from "@imprint/runtime";
import { parseMarkdown } from "@imprint/document";
import type { Link, List, PhrasingContent } from "mdast";
import { parse as parseYaml } from "yaml";
import { slugOf } from "../../import/index.js";
import { PAGE_LIMITS } from "../../revisions/index.js";
import type { GitLimits } from "./limits.js";
import { readPageFile } from "./markdown-text.js";
import type { TreeEntry } from "../store/repository.js";

/**
 * Reads a repository laid out as GitBook's Git Sync writes it into the page tree it describes:
 * `.gitbook.yaml` (root, structure.readme, structure.summary), SUMMARY.md (lists of links, nested
 * for sub-pages, `##` headings for groups, absolute URLs for link pages), one markdown file per
 * page (front matter: description, icon, hidden; the first `#` heading: the title) and
 * `.gitbook/assets/` for files. Without a SUMMARY.md the tree comes from the folders (README.md
 * or index.md as a folder's page, other markdown files as its sub-pages, names in order).
 */

export interface LayoutPage {
  type: "document" | "group" | "link";
  /** Markdown file of a document page (repository path); null for groups and links. */
  path: string | null;
  oid: string | null;
  title: string;
  slug: string;
  description: string;
  icon: string;
  hidden: boolean;
  /** Body as in the file (links not yet rewritten). */
  body: string;
  href: string | null;
  children: LayoutPage[];
}

export interface LayoutFile {
  path: string;
  oid: string;
  size: number;
  name: string;
  contentType: string;
}

/** A reusable content: a markdown file of `.gitbook/includes/` (its title in front matter, else its first `#` heading, else its name). */
export interface LayoutInclude {
  path: string;
  oid: string;
  title: string;
  /** Body as in the file (links not yet rewritten). */
  body: string;
}

export interface Layout {
  pages: LayoutPage[];
  files: LayoutFile[];
  includes: LayoutInclude[];
  /** Content root folder (repository path, "" for the top). */
  root: string;
}

const SLUG = /^[\p{L}\p{N}_-]+$/u;
const MARKDOWN = /\.(md|markdown)$/i;
const CONTENT_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
  webp: "image/webp",
  avif: "image/avif",
  ico: "image/x-icon",
  pdf: "application/pdf",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  csv: "text/csv",
  zip: "application/zip",
  mp4: "video/mp4",
  mp3: "audio/mpeg",
};

export function contentTypeOf(name: string): string {
  const extension = name.split(".").pop()?.toLowerCase() ?? "";
  return CONTENT_TYPES[extension] ?? "application/octet-stream";
}

/** `./a/b/../c` → `a/c`; undefined when it leaves the repository. */
export function normalizePath(path: string): string | undefined {
  const normalized = posix.normalize(path.replace(/\\/g, "/")).replace(/^\.\//, "").replace(/\/$/, "");
  if (normalized === "." || normalized === "") return "";
  if (normalized.startsWith("../") || normalized === ".." || normalized.startsWith("/")) return undefined;
  return normalized;
}

/** A relative link target of a file: the repository path it names and its anchor; undefined for URLs and absolute paths. */
export function resolveRelative(fromFile: string, url: string): { path: string; anchor: string } | undefined {
  if (url === "" || url.startsWith("#") || url.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(url)) return undefined;
  const hash = url.indexOf("#");
  const rawPath = (hash < 0 ? url : url.slice(0, hash)).replace(/\?.*$/, "");
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    decoded = rawPath;
  }
  const path = normalizePath(posix.join(posix.dirname(fromFile), decoded));
  if (path === undefined) return undefined;
  return { path, anchor: hash < 0 ? "" : url.slice(hash + 1) };
}

function humanize(name: string): string {
  const base = name.replace(MARKDOWN, "").replace(/[-_]+/g, " ").trim();
  return base ? base.charAt(0).toUpperCase() + base.slice(1) : "Untitled";
}

function boundedTitle(title: string): string {
  const trimmed = title.replace(/\s+/g, " ").trim() || "Untitled";
  return trimmed.length > PAGE_LIMITS.title ? `${trimmed.slice(0, PAGE_LIMITS.title - 1)}…` : trimmed;
}

function slugFromName(name: string, title: string): string {
  const stem = name.replace(MARKDOWN, "");
  if (stem.length <= PAGE_LIMITS.slug && SLUG.test(stem)) return stem;
  return slugOf(stem) || slugOf(title) || "page";
}

function isReadme(path: string): boolean {
  return /^readme\.md$/i.test(posix.basename(path));
}

/** The slug a page file gives: its name, or its folder's for a README.md; the title's at the root. */
function slugOfPath(path: string, root: string, title: string): string {
  const relative = root ? path.slice(root.length + 1) : path;
  const base = posix.basename(relative);
  if (isReadme(base) || /^index\.md$/i.test(base)) {
    const folder = posix.dirname(relative);
    if (folder === ".") return slugOf(title) || "readme";
    return slugFromName(posix.basename(folder), title);
  }
  return slugFromName(base, title);
}

function phrasingText(nodes: readonly PhrasingContent[]): string {
  let text = "";
  for (const node of nodes) {
    if (node.type === "text" || node.type === "inlineCode") text += node.value;
    else if ("children" in node) text += phrasingText(node.children);
  }
  return text;
}

interface SummaryEntry {
  kind: "page" | "link" | "group";
  title: string;
  /** Repository path of a page's file; URL of a link; the slug anchor of a group heading. */
  target: string;
  children: SummaryEntry[];
}

function summaryItems(list: List, summaryPath: string): SummaryEntry[] {
  const entries: SummaryEntry[] = [];
  for (const item of list.children) {
    const nested = item.children.filter((child): child is List => child.type === "list").flatMap((child) => summaryItems(child, summaryPath));
    const paragraph = item.children.find((child) => child.type === "paragraph");
    const link = paragraph?.children.find((child): child is Link => child.type === "link");
    if (!link) {
      entries.push(...nested);
      continue;
    }
    const title = phrasingText(link.children);
    if (/^https?:\/\//i.test(link.url)) {
      entries.push({ kind: "link", title, target: link.url, children: [] });
      continue;
    }
    const resolved = resolveRelative(summaryPath, link.url);
    if (!resolved) {
      entries.push(...nested);
      continue;
    }
    entries.push({ kind: "page", title, target: resolved.path, children: nested });
  }
  return entries;
}

/** SUMMARY.md as a list of entries; `##` headings open groups holding the lists that follow. */
function parseSummary(text: string, summaryPath: string): SummaryEntry[] {
  const tree = parseMarkdown(text);
  const top: SummaryEntry[] = [];
  let group: SummaryEntry | undefined;
  for (const node of tree.children) {
    if (node.type === "heading") {
      const heading = node;
      if (heading.depth === 1) continue;
      let anchor = "";
      for (const child of heading.children) {
        if (child.type === "html") anchor = /id="([^"]+)"/.exec(child.value)?.[1] ?? anchor;
      }
      group = { kind: "group", title: phrasingText(heading.children).trim(), target: anchor, children: [] };
      top.push(group);
    } else if (node.type === "list") {
      const items = summaryItems(node, summaryPath);
      if (group) group.children.push(...items);
      else top.push(...items);
    }
  }
  return top;
}

export interface ReadLayoutInput {
  tree: TreeEntry[];
  /** The project directory (GitBook's repoProjectDirectory); "" for the repository's top. */
  directory: string;
  read: (oids: string[]) => Promise<Map<string, Buffer>>;
  limits: GitLimits;
}

/** Reads the layout of a fetched tree. Limits (page count, markdown size) answer payload_too_large naming them. */
export async function readLayout(input: ReadLayoutInput): Promise<Layout> {
  const { limits } = input;
  const byPath = new Map(input.tree.map((entry) => [entry.path, entry]));
  const within = (path: string, folder: string) => folder === "" || path === folder || path.startsWith(`${folder}/`);

  // .gitbook.yaml (in the project directory) moves the root and names the readme and summary.
  const configPath = input.directory ? `${input.directory}/.gitbook.yaml` : ".gitbook.yaml";
  let root = input.directory;
  let readmeName = "README.md";
  let summaryName = "SUMMARY.md";
  const config = byPath.get(configPath);
  if (config) {
    const text = (await input.read([config.oid])).get(config.oid)?.toString("utf8") ?? "";
    let data: unknown;
    try {
      data = parseYaml(text);
    } catch {
      throw AppError.invalidArgument(".gitbook.yaml: is not valid YAML");
    }
    const fields = (data && typeof data === "object" ? data : {}) as { root?: unknown; structure?: { readme?: unknown; summary?: unknown } };
    if (typeof fields.root === "string") {
      const resolved = normalizePath(posix.join(input.directory || ".", fields.root));
      if (resolved === undefined) throw AppError.invalidArgument(".gitbook.yaml: root must be a folder inside the repository");
      root = resolved;
    }
    if (typeof fields.structure?.readme === "string") readmeName = normalizePath(fields.structure.readme) ?? readmeName;
    if (typeof fields.structure?.summary === "string") summaryName = normalizePath(fields.structure.summary) ?? summaryName;
  }
  const inRoot = (name: string) => (root ? `${root}/${name}` : name);

  const entries = input.tree.filter((entry) => within(entry.path, root));
  const markdownEntries = entries.filter((entry) => MARKDOWN.test(entry.path) && !entry.path.split("/").some((part) => part.startsWith(".")));
  for (const entry of markdownEntries) {
    if (entry.size > limits.maxMarkdownBytes) {
      throw new AppError("payload_too_large", `${entry.path}: markdown larger than the limit of ${limits.maxMarkdownBytes} bytes (GIT_MAX_MARKDOWN_BYTES)`);
    }
  }
  const texts = await input.read(markdownEntries.map((entry) => entry.oid));
  const textOf = (path: string) => {
    const entry = byPath.get(path);
    return entry ? texts.get(entry.oid)?.toString("utf8") : undefined;
  };

  let pageCount = 0;
  const countPage = () => {
    pageCount += 1;
    if (pageCount > limits.maxPages) throw new AppError("payload_too_large", `repository: more than ${limits.maxPages} pages (GIT_MAX_PAGES)`);
  };

  const documentPage = (path: string, fallbackTitle: string, children: LayoutPage[]): LayoutPage => {
    countPage();
    const file = readPageFile(textOf(path) ?? "");
    const title = boundedTitle(file.title ?? (fallbackTitle || humanize(posix.basename(isReadme(path) ? posix.dirname(path) : path))));
    return {
      type: "document",
      path,
      oid: byPath.get(path)?.oid ?? null,
      title,
      slug: slugOfPath(path, root, title),
      description: (file.frontMatter.description ?? "").slice(0, PAGE_LIMITS.description),
      icon: (file.frontMatter.icon ?? "").slice(0, PAGE_LIMITS.icon),
      hidden: file.frontMatter.hidden ?? false,
      body: file.body,
      href: null,
      children,
    };
  };

  let pages: LayoutPage[];
  const summaryPath = inRoot(summaryName);
  const summaryText = textOf(summaryPath);
  if (summaryText !== undefined) {
    const seen = new Set<string>();
    const build = (entry: SummaryEntry): LayoutPage[] => {
      if (entry.kind === "link") {
        countPage();
        const title = boundedTitle(entry.title);
        return [
          {
            type: "link",
            path: null,
            oid: null,
            title,
            slug: slugOf(title) || "link",
            description: "",
            icon: "",
            hidden: false,
            body: "",
            href: entry.target,
            children: [],
          },
        ];
      }
      if (entry.kind === "group") {
        countPage();
        const title = boundedTitle(entry.title);
        const slug = entry.target && SLUG.test(entry.target) && entry.target.length <= PAGE_LIMITS.slug ? entry.target : slugOf(title) || "group";
        return [
          {
            type: "group",
            path: null,
            oid: null,
            title,
            slug,
            description: "",
            icon: "",
            hidden: false,
            body: "",
            href: null,
            children: entry.children.flatMap(build),
          },
        ];
      }
      const children = entry.children.flatMap(build);
      if (seen.has(entry.target) || !byPath.has(entry.target) || !MARKDOWN.test(entry.target)) return children;
      seen.add(entry.target);
      return [documentPage(entry.target, entry.title, children)];
    };
    pages = parseSummary(summaryText, summaryPath).flatMap(build);
    // Groups hold pages only at the top level: a group found lower is flattened into its pages.
    for (const page of pages) page.children = page.children.flatMap((child) => (child.type === "group" ? child.children : [child]));
  } else {
    pages = folderTree(
      markdownEntries.map((entry) => entry.path),
      root,
      inRoot(readmeName),
      documentPage,
    );
  }
  uniqueSlugs(pages);

  // Reusable contents: GitBook writes them to `.gitbook/includes/<name>.md` under the content root.
  const includesFolder = inRoot(".gitbook/includes/");
  const includeEntries = entries.filter(
    (entry) => entry.path.startsWith(includesFolder) && !entry.path.slice(includesFolder.length).includes("/") && MARKDOWN.test(entry.path),
  );
  for (const entry of includeEntries) {
    if (entry.size > limits.maxMarkdownBytes) {
      throw new AppError("payload_too_large", `${entry.path}: markdown larger than the limit of ${limits.maxMarkdownBytes} bytes (GIT_MAX_MARKDOWN_BYTES)`);
    }
  }
  const includeTexts = await input.read(includeEntries.map((entry) => entry.oid));
  const includes = includeEntries.map((entry): LayoutInclude => {
    const file = readPageFile(includeTexts.get(entry.oid)?.toString("utf8") ?? "");
    // GitBook writes the title in front matter; a `#` heading or the file's name stands in for it.
    const title = file.frontMatter.title || file.title || humanize(posix.basename(entry.path));
    return { path: entry.path, oid: entry.oid, title: boundedTitle(title), body: file.body };
  });

  return { pages, files: collectFiles(entries, root, pages, includes), root, includes };
}

/** The tree from folders: a folder's README.md (or index.md) is its page, other markdown files and sub-folders its sub-pages. */
function folderTree(
  paths: string[],
  root: string,
  readmePath: string,
  documentPage: (path: string, fallbackTitle: string, children: LayoutPage[]) => LayoutPage,
): LayoutPage[] {
  interface Folder {
    files: string[];
    folders: Map<string, Folder>;
  }
  const top: Folder = { files: [], folders: new Map() };
  for (const path of paths) {
    const relative = root ? path.slice(root.length + 1) : path;
    const parts = relative.split("/");
    let folder = top;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) {
        next = { files: [], folders: new Map() };
        folder.folders.set(part, next);
      }
      folder = next;
    }
    folder.files.push(path);
  }
  const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });
  const indexOf = (folder: Folder) => folder.files.find(isReadme) ?? folder.files.find((path) => /^index\.md$/i.test(posix.basename(path)));
  const childrenOf = (folder: Folder, index: string | undefined): LayoutPage[] => {
    const items: { name: string; page: () => LayoutPage | undefined }[] = [];
    for (const path of folder.files) {
      if (path === index) continue;
      items.push({ name: posix.basename(path), page: () => documentPage(path, "", []) });
    }
    for (const [name, sub] of folder.folders) {
      items.push({
        name,
        page: () => {
          const subIndex = indexOf(sub);
          const children = childrenOf(sub, subIndex);
          if (subIndex) return documentPage(subIndex, "", children);
          if (children.length === 0) return undefined;
          // A folder without its own page becomes an empty page holding its files.
          const page = documentPage(`${root ? `${root}/` : ""}${name}`, humanize(name), children);
          return { ...page, path: null, oid: null, slug: slugFromName(name, page.title) };
        },
      });
    }
    return items
      .sort((a, b) => byName(a.name, b.name))
      .map((item) => item.page())
      .filter((page): page is LayoutPage => page !== undefined);
  };
  const readme = top.files.includes(readmePath) ? readmePath : indexOf(top);
  const pages = childrenOf(top, readme);
  return readme ? [documentPage(readme, "", []), ...pages] : pages;
}

/** Sibling slugs made unique (GitBook's paths are unique among siblings). */
function uniqueSlugs(pages: LayoutPage[]): void {
  const taken = new Set<string>();
  for (const page of pages) {
    let slug = page.slug;
    for (let suffix = 1; taken.has(slug); suffix += 1) slug = `${page.slug.slice(0, PAGE_LIMITS.slug - 6)}-${suffix}`;
    taken.add(slug);
    page.slug = slug;
    uniqueSlugs(page.children);
  }
}

/** Files: everything under .gitbook/assets/ and any other non-markdown file a page or a reusable content links to. */
function collectFiles(entries: TreeEntry[], root: string, pages: LayoutPage[], includes: LayoutInclude[]): LayoutFile[] {
  const byPath = new Map(entries.map((entry) => [entry.path, entry]));
  const assets = root ? `${root}/.gitbook/assets/` : ".gitbook/assets/";
  const wanted = new Set(entries.filter((entry) => entry.path.startsWith(assets)).map((entry) => entry.path));
  const linkedFrom = (path: string, text: string) => {
    for (const match of text.matchAll(/\]\(\s*<?([^\s)>]+)/g)) {
      const resolved = resolveRelative(path, match[1] ?? "");
      if (resolved && byPath.has(resolved.path) && !MARKDOWN.test(resolved.path)) wanted.add(resolved.path);
    }
    for (const match of text.matchAll(/\bsrc="([^"]+)"/g)) {
      const resolved = resolveRelative(path, match[1] ?? "");
      if (resolved && byPath.has(resolved.path) && !MARKDOWN.test(resolved.path)) wanted.add(resolved.path);
    }
  };
  const visit = (page: LayoutPage) => {
    if (page.path) linkedFrom(page.path, page.body);
    page.children.forEach(visit);
  };
  pages.forEach(visit);
  for (const include of includes) linkedFrom(include.path, include.body);
  return [...wanted]
    .sort()
    .map((path) => {
      const entry = byPath.get(path)!;
      const name = posix.basename(path).slice(0, 255) || "file";
      return { path, oid: entry.oid, size: entry.size, name, contentType: contentTypeOf(name) };
    })
    .filter((file) => file.path !== `${root ? `${root}/` : ""}.gitbook.yaml`);
}
