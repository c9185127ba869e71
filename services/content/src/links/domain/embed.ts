import type { Element, Root } from "hast";
import { select, selectAll } from "hast-util-select";
import { toText } from "hast-util-to-text";

/** What an embed of a URL shows: GitBook's Embed of type "link". */
export interface LinkEmbed {
  title: string;
  site: string;
  /** Absolute http(s) URL; undefined when the page names none. */
  icon: string | undefined;
}

const MAX_TITLE = 300;
const MAX_SITE = 200;

const attribute = (element: Element | undefined, name: string): string => {
  const value = element?.properties?.[name];
  return typeof value === "string" ? value.trim() : Array.isArray(value) ? value.join(" ").trim() : "";
};

/** A URL that embeds it by name only (a page that could not be read, or is not HTML). */
export function plainLinkEmbed(url: URL): LinkEmbed {
  return { title: url.href.slice(0, MAX_TITLE), site: url.host, icon: undefined };
}

/** The embed of an HTML page read at `url` (after redirects): Open Graph first, then the page's own title and icon. */
export function linkEmbedOf(page: Root, url: URL): LinkEmbed {
  const meta = (property: string) => attribute(select(`meta[property="${property}"], meta[name="${property}"]`, page) ?? undefined, "content");
  const titleElement = select("title", page);
  const title = meta("og:title") || (titleElement ? toText(titleElement).trim() : "") || url.href;
  const site = meta("og:site_name") || url.host;
  const iconLink = selectAll("link[rel][href]", page).find((link) => attribute(link, "rel").toLowerCase().split(/\s+/).includes("icon"));
  let icon: string | undefined;
  try {
    const resolved = iconLink ? new URL(attribute(iconLink, "href"), url) : undefined;
    icon = resolved && (resolved.protocol === "https:" || resolved.protocol === "http:") ? resolved.href : undefined;
  } catch {
    icon = undefined;
  }
  return { title: title.replace(/\s+/g, " ").slice(0, MAX_TITLE), site: site.slice(0, MAX_SITE), icon };
}
