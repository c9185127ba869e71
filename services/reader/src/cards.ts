import type { ParameterizedContext } from "koa";
import type { Page } from "@imprint/proto/content/v1/revisions";
import type { ReaderData } from "./data.js";
import { chromeOf, locate, readingOrder } from "./site.js";
import { cardHash, renderCard, type CardContent } from "./views/card.js";
import type { Visit } from "./visit.js";

/**
 * Pages' link-preview cards (`og:image`), at `<site-space base>~og/<pageId>.png?v=<content hash>`:
 * read under the same rules as the page (a visitor who may not read it gets 404), drawn once per
 * content and kept (a bounded number, the oldest dropped first), at most one drawing at a time.
 * With the current hash in the URL the answer is immutable; any other is revalidated by its tag.
 */

/** The segment before a card's file name: no page path holds it. */
export const CARDS_SEGMENT = "~og";
/** Cards kept (some 20–40 KB each). */
const KEPT_CARDS = 500;

const kept = new Map<string, Buffer>();
let drawing: Promise<unknown> = Promise.resolve();

/** The card of `content`, drawn once (one drawing at a time: each is CPU-bound) and kept. */
async function cardOf(content: CardContent, hash: string): Promise<Buffer> {
  const held = kept.get(hash);
  if (held) return held;
  const drawn = drawing.then(async () => kept.get(hash) ?? (await renderCard(content)));
  drawing = drawn.catch(() => undefined);
  const png = await drawn;
  kept.delete(hash);
  kept.set(hash, png);
  if (kept.size > KEPT_CARDS) kept.delete(kept.keys().next().value!);
  return png;
}

/** What a page's card shows: the site's title (as the page's frame names it), the page's, the site's colour. */
export function cardContent(visit: Visit, customizationJson: string, language: string, page: Page): CardContent {
  const chrome = chromeOf(visit.site, customizationJson, language);
  return { siteTitle: chrome.title, pageTitle: page.title, color: chrome.primaryColor?.light ?? "#346DDB" };
}

/** Where a page's card is read, relative to the reader (its site-space's base included). */
export function cardPath(prefix: string, page: Page, content: CardContent): string {
  return `${prefix}${CARDS_SEGMENT}/${encodeURIComponent(page.id)}.png?v=${cardHash(content)}`;
}

/** A card: `segments` end with `~og/<pageId>.png`. False when there is none for this visitor. */
export async function serveCard(ctx: ParameterizedContext, visit: Visit, data: ReaderData, segments: string[]): Promise<boolean> {
  const location = locate(visit.site, segments.slice(0, -2), visit.context, visit.base);
  const name = segments[segments.length - 1]!;
  if (!location || location.pagePath !== "" || !name.endsWith(".png")) return false;
  const space = await data.space(location.siteSpace.spaceId);
  const page = space ? readingOrder(space.pages).find((candidate) => candidate.id === name.slice(0, -4)) : undefined;
  if (!space || !page) return false;
  const content = cardContent(visit, location.siteSpace.customizationJson || visit.site.customizationJson, space.language, page);
  const hash = cardHash(content);
  const etag = `"${hash}"`;
  ctx.set("ETag", etag);
  const shared = visit.site.visibility === "public" && visit.contextKey === "";
  if (ctx.query.v === hash) ctx.set("Cache-Control", `${shared ? "public" : "private"}, max-age=31536000, immutable`);
  if (ctx.get("if-none-match") === etag) {
    ctx.status = 304;
    return true;
  }
  ctx.type = "image/png";
  ctx.body = await cardOf(content, hash);
  return true;
}
