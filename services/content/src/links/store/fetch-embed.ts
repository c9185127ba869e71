import type { Root } from "hast";
import rehypeParse from "rehype-parse";
import { unified } from "unified";
import { safeFetch, SafeFetchError, type SafeFetchPolicy } from "@imprint/runtime";

const htmlParser = unified().use(rehypeParse);

/** At most this much of a page is read for its title and icon (they are in its head). */
const MAX_PAGE_BYTES = 1024 * 1024;

/**
 * The HTML page at `url` (after redirects, through the fetch guard), parsed; null when it cannot
 * be read (refused, unreachable, too slow, too large, not HTML, an error status): the embed is then
 * a plain link.
 */
export async function fetchEmbeddedPage(url: URL, policy: SafeFetchPolicy): Promise<{ url: URL; page: Root } | null> {
  try {
    const fetched = await safeFetch(url, policy, { accept: (type) => type === "text/html" || type === "application/xhtml+xml", maxBodyBytes: MAX_PAGE_BYTES });
    return { url: fetched.url, page: htmlParser.parse(fetched.body.toString("utf8")) };
  } catch (error) {
    if (error instanceof SafeFetchError) return null;
    throw error;
  }
}
