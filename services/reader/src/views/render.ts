import type { ElementContent, Root } from "hast";
import { toHtml } from "hast-util-to-html";
import { h } from "hastscript";
import { readerAssets, THEME_BOOT_SCRIPT } from "./assets.js";
import { diagramScriptPath } from "./diagrams.js";
import { announcement, brand, editLink, fontPreloads, footerExtras, lookStyleOf } from "./look.js";
import type { ViewFrame, ViewLink, ViewPage, ViewSearch, ViewSectionEntry, ViewStatus, ViewTreeItem } from "./model.js";
import { feedbackForm } from "./feedback.js";
import { formatDate, readerWords, type ReaderWords } from "./words.js";

/**
 * The reader's pages as complete HTML documents, from the view models: every text and attribute
 * is escaped by the serializer; the page body (already HTML, from @imprint/document's renderer)
 * is the only markup inserted as is. Everything works without the script. The reader's own words
 * are in the frame's language (words.ts).
 */

const current = (link: ViewLink) => (link.active ? { "aria-current": "page" } : {});
const anchor = (link: ViewLink, props: Record<string, unknown> = {}) =>
  h(
    "a",
    { href: link.url, ...current(link), ...(link.external ? { rel: "noopener" } : {}), ...(link.newTab ? { target: "_blank" } : {}), ...props },
    link.title,
  );

/** The page's one inline style: the site's primary colours and its look (its Content-Security-Policy allows it by hash); undefined for none. */
export function inlineStyleOf(frame: ViewFrame): string | undefined {
  const primary = frame.chrome.primaryColor;
  const style = `${primary ? `:root{--primary-light:${primary.light};--primary-dark:${primary.dark ?? primary.light}}` : ""}${lookStyleOf(frame.chrome, frame.assetBase ?? "")}`;
  return style || undefined;
}

function head(frame: ViewFrame, title: string, description: string | undefined): ElementContent {
  const { chrome, meta } = frame;
  const colors = inlineStyleOf(frame);
  return h("head", [
    h("meta", { charSet: "utf-8" }),
    h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
    h("title", title),
    ...(description ? [h("meta", { name: "description", content: description })] : []),
    h("link", { rel: "canonical", href: meta.canonicalUrl }),
    ...(meta.noindex ? [h("meta", { name: "robots", content: "noindex" })] : []),
    h("meta", { property: "og:type", content: "website" }),
    h("meta", { property: "og:title", content: title }),
    h("meta", { property: "og:site_name", content: meta.siteName }),
    h("meta", { property: "og:url", content: meta.canonicalUrl }),
    ...(description ? [h("meta", { property: "og:description", content: description })] : []),
    ...(meta.image
      ? [
          h("meta", { property: "og:image", content: meta.image }),
          h("meta", { name: "twitter:card", content: "summary_large_image" }),
          h("meta", { name: "twitter:image", content: meta.image }),
        ]
      : []),
    ...(meta.markdownUrl ? [h("link", { rel: "alternate", type: "text/markdown", href: meta.markdownUrl })] : []),
    // Without a favicon of the site's, an empty one: browsers would otherwise ask for /favicon.ico.
    h("link", { rel: "icon", href: chrome.favicon ?? "data:," }),
    h("link", { rel: "stylesheet", href: `${frame.assetBase ?? ""}${readerAssets.style.path}` }),
    ...fontPreloads(chrome, frame.assetBase ?? ""),
    ...(colors ? [h("style", colors)] : []),
    h("script", THEME_BOOT_SCRIPT),
    h("script", { src: `${frame.assetBase ?? ""}${readerAssets.script.path}`, defer: true }),
  ]);
}

function header(frame: ViewFrame, words: ReaderWords): ElementContent {
  const { chrome } = frame;
  return h("header.site", [
    brand(chrome, frame.homeUrl),
    ...(chrome.headerLinks.length > 0
      ? [
          h(
            "nav.links",
            { "aria-label": words.links },
            chrome.headerLinks.map((link) => anchor(link)),
          ),
        ]
      : []),
    ...(frame.searchUrl
      ? [
          h("form.search", { role: "search", action: frame.searchUrl, method: "get" }, [
            h("label.skip", { for: "q" }, words.search),
            h("input#q", { type: "search", name: "q", placeholder: words.searchPlaceholder, "aria-label": words.searchSite(chrome.title) }),
          ]),
        ]
      : []),
    ...(chrome.theme.toggleable ? [h("button.theme", { type: "button", hidden: true, "aria-label": words.switchTheme }, "◐")] : []),
  ]);
}

function sectionEntry(entry: ViewSectionEntry): ElementContent {
  if (!entry.children) return anchor(entry);
  return h("details", [
    h("summary", entry.title),
    h(
      "ul",
      entry.children.map((child) => h("li", [sectionEntry(child)])),
    ),
  ]);
}

function tree(items: ViewTreeItem[]): ElementContent {
  return h(
    "ul",
    items.map((item) => {
      if (item.kind === "group") return h("li", [h("div.group", item.title), tree(item.children)]);
      if (item.children.length === 0) return h("li", [anchor(item)]);
      return h("li", [h("details", { open: item.expanded || item.active }, [h("summary", [anchor(item)]), tree(item.children)])]);
    }),
  );
}

function navigation(frame: ViewFrame, words: ReaderWords): ElementContent[] {
  return [h("nav", { "aria-label": words.pages }, [tree(frame.tree)])];
}

function variants(frame: ViewFrame, words: ReaderWords): ElementContent[] {
  if (!frame.variants || frame.variants.length < 2) return [];
  return [
    h("nav.variants", { "aria-label": words.versions }, [
      h(
        "ul",
        frame.variants.map((variant) => h("li", [anchor(variant)])),
      ),
    ]),
  ];
}

function footer(frame: ViewFrame, words: ReaderWords): ElementContent {
  const footerModel = frame.chrome.footer;
  return h("footer.site", [
    ...(footerModel && footerModel.groups.length > 0
      ? [
          h(
            "div.groups",
            footerModel.groups.map((group) =>
              h("div", [
                h("strong", group.title),
                h(
                  "ul",
                  group.links.map((link) => h("li", [anchor(link)])),
                ),
              ]),
            ),
          ),
        ]
      : []),
    ...footerExtras(frame.chrome, words.privacyPolicy),
    h("p", footerModel?.copyright ?? frame.chrome.title),
  ]);
}

/** The frame around a main element: header, sections, the page tree, the main, the table of contents, the footer. */
function document(frame: ViewFrame, title: string, description: string | undefined, main: ElementContent[], toc: ElementContent[] = []): string {
  const words = readerWords(frame.language);
  const tree: Root = {
    type: "root",
    children: [
      { type: "doctype" },
      h("html", { lang: frame.language || "en", ...(frame.chrome.theme.default !== "system" ? { dataTheme: frame.chrome.theme.default } : {}) }, [
        head(frame, title, description),
        // The words the reader's script shows (copy buttons, the live results' list), in the page's language.
        h("body", { dataCopy: words.copy.label, dataCopied: words.copy.done, dataCopyFailed: words.copy.failed, dataSearchResults: words.searchResults }, [
          h("a.skip", { href: "#content" }, words.skipToContent),
          ...announcement(frame.chrome),
          header(frame, words),
          ...(frame.sections && frame.sections.length > 0 ? [h("nav.sections", { "aria-label": words.sections }, frame.sections.map(sectionEntry))] : []),
          h("details.mobile-nav", [h("summary", words.menu), ...navigation(frame, words)]),
          h("div.layout", [h("aside.tree", navigation(frame, words)), h("main#content", { tabIndex: -1 }, main), h("aside.toc", toc)]),
          footer(frame, words),
          ...(frame.scripts ?? []).map((src) => h("script", { src, async: true })),
        ]),
      ]),
    ],
  };
  return toHtml(tree, { allowDangerousHtml: true });
}

/** A page of documentation. */
export function renderPage(view: ViewPage): string {
  const { page } = view;
  const words = readerWords(view.language);
  const main: ElementContent[] = [
    ...(page.breadcrumbs.length > 0
      ? [
          h("nav.breadcrumbs", { "aria-label": words.breadcrumbs }, [
            h(
              "ol",
              page.breadcrumbs.map((crumb) => h("li", [anchor(crumb)])),
            ),
          ]),
        ]
      : []),
    ...variants(view, words),
    h("article", [
      h("h1", [...(page.emoji ? [`${page.emoji} `] : []), page.title]),
      ...(page.description ? [h("p.description", page.description)] : []),
      { type: "raw", value: page.bodyHtml } as unknown as ElementContent,
    ]),
    ...(page.hasDiagram ? [h("script", { type: "module", src: `${view.assetBase ?? ""}${diagramScriptPath}` })] : []),
    ...(view.chrome.showLastUpdated && page.lastUpdated
      ? [h("p.updated", [`${words.lastUpdated} `, h("time", { dateTime: page.lastUpdated.toISOString() }, formatDate(view.language, page.lastUpdated))])]
      : []),
    ...editLink(page.edit, words.editOn),
    ...feedbackForm(view, words),
    ...(view.chrome.pagination && (page.previous || page.next)
      ? [
          h("nav.pagination", { "aria-label": words.previousAndNext }, [
            ...(page.previous ? [h("a.previous", { href: page.previous.url, rel: "prev" }, [h("small", words.previous), page.previous.title])] : []),
            ...(page.next ? [h("a.next", { href: page.next.url, rel: "next" }, [h("small", words.next), page.next.title])] : []),
          ]),
        ]
      : []),
  ];
  const toc =
    page.toc.length > 0
      ? [
          h("nav", { "aria-label": words.onThisPage }, [
            h("strong", words.onThisPage),
            h(
              "ul",
              page.toc.map((entry) => h(`li.d${entry.depth}`, [h("a", { href: `#${entry.id}` }, entry.title)])),
            ),
          ]),
        ]
      : [];
  return document(view, view.meta.title, page.description ?? view.meta.description, main, toc);
}

/** The search page: the form and the results (the same form as the header's). */
export function renderSearch(view: ViewSearch): string {
  const words = readerWords(view.language);
  const main: ElementContent[] = [
    h("h1", view.query ? words.resultsFor(view.query) : words.search),
    h("form.search", { role: "search", action: view.searchUrl, method: "get" }, [
      h("label", { for: "q2" }, words.searchTheDocumentation),
      h("input#q2", { type: "search", name: "q", value: view.query }),
      h("button", { type: "submit" }, words.search),
    ]),
    view.query && view.hits.length === 0
      ? h("p", words.noMatches)
      : h(
          "ol.hits",
          view.hits.map((hit) =>
            h("li", [h("a", { href: hit.url }, hit.title), ...(hit.context ? [h("br"), h("small", hit.context)] : []), h("p", hit.excerpt)]),
          ),
        ),
  ];
  return document(view, view.meta.title, view.meta.description, main);
}

/** A page answered instead of content (not found, sign-in needed): in the site's frame when the visitor may see it. */
export function renderStatus(view: ViewStatus): string {
  const body = [h("h1", view.title), h("p", view.message)];
  if (view.frame) {
    const home = view.status === 404 ? [h("p", [h("a.home", { href: view.frame.homeUrl }, readerWords(view.frame.language).notFound.home)])] : [];
    return document(view.frame, `${view.title} · ${view.frame.chrome.title}`, undefined, [...body, ...home]);
  }
  return toHtml({
    type: "root",
    children: [
      { type: "doctype" },
      h("html", { lang: view.language || "en" }, [
        h("head", [
          h("meta", { charSet: "utf-8" }),
          h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
          h("meta", { name: "robots", content: "noindex" }),
          h("title", view.title),
          h("link", { rel: "stylesheet", href: `${view.assetBase ?? ""}${readerAssets.style.path}` }),
        ]),
        h("body", [h("main#content", body)]),
      ]),
    ],
  });
}
