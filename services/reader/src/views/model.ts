import type { ReaderFont } from "./fonts.js";

/**
 * What the reader's views render: plain data, already decided for one visitor (everything the
 * visitor may not see is absent), with every URL final (share key, base path and `.md` suffix
 * included). The HTTP layer builds these from publishing and content; the views turn them into
 * HTML and never fetch anything.
 */

/** A link shown to the reader. */
export interface ViewLink {
  title: string;
  /** Final URL: a path on this reader, or an absolute external URL. */
  url: string;
  /** Whether it is where the visitor is now (or contains it). */
  active?: boolean;
  /** Whether it leaves the site (opened as a plain external link). */
  external?: boolean;
  /** Whether it opens in a new tab (the site's externalLinks.target `blank`, for links leaving it). */
  newTab?: boolean;
}

/** An entry of the site's top navigation: a section, an external link, or a group of them. */
export interface ViewSectionEntry extends ViewLink {
  /** Icon name (GitBook's icon names); absent for none. */
  icon?: string;
  /** A section group's entries; absent for a section or a link. */
  children?: ViewSectionEntry[];
}

/** An entry of the page tree in the sidebar. */
export interface ViewTreeItem extends ViewLink {
  /** A group (GitBook's page group: a heading, not a page) or a link page opens nothing itself. */
  kind: "page" | "group" | "link";
  children: ViewTreeItem[];
  /** Whether its children are shown open (it is on the way to the current page). */
  expanded?: boolean;
}

/** A heading of the current page, for its table of contents. */
export interface ViewTocEntry {
  /** The heading's anchor id, as rendered in the body. */
  id: string;
  title: string;
  /** 1, 2 or 3 (heading-1 … heading-3). */
  depth: number;
}

/** The site's look and chrome, from its customization (GitBook's SiteCustomizationSettings). */
export interface ViewSiteChrome {
  /** The site's title (customization title, else the site's). */
  title: string;
  /** Logo URLs; absent for none (the title is shown instead). */
  logo?: { light: string; dark?: string };
  /** Favicon URL; absent for none. */
  favicon?: string;
  /** Primary colour as #rrggbb, per mode. */
  primaryColor?: { light: string; dark?: string };
  /** The default theme, and whether visitors may toggle it. */
  theme: { default: "light" | "dark" | "system"; toggleable: boolean };
  /** Links in the header. */
  headerLinks: ViewLink[];
  /** Footer: groups of links and a copyright line. */
  footer?: { groups: { title: string; links: ViewLink[] }[]; copyright?: string };
  /** Whether previous/next links are shown under pages. */
  pagination: boolean;
  /** Whether the "last updated" date is shown. */
  showLastUpdated: boolean;
  /** Whether pages end with "Was this page helpful?" (a form posted to the page itself); absent for no. */
  feedback?: boolean;
  /** The site's fonts the reader serves (styling.font, styling.headingFont); absent: the system stack. */
  fonts?: { body?: ReaderFont; heading?: ReaderFont };
  /** Corners of boxes, fields and buttons (styling.corners); absent: rounded. */
  corners?: "straight" | "rounded" | "circular";
  /** Links in the text's colour, underlined in the primary colour (styling.links `accent`). */
  accentLinks?: boolean;
  /** Hints' colours (styling.infoColor … dangerColor) as #rrggbb, per mode. */
  hintColors?: Partial<Record<HintStyle, { light: string; dark?: string }>>;
  /** A banner above the header (announcement, when enabled). */
  announcement?: { message: string; style: HintStyle; url?: string };
  /** External links open in a new tab (externalLinks.target `blank`). */
  externalLinksInNewTab?: boolean;
  /** The footer's logo, per mode (footer.logo). */
  footerLogo?: { light: string; dark?: string };
  /** Linked in the footer (privacyPolicy.url). */
  privacyPolicyUrl?: string;
  /** The image link previews show (socialPreview.url); absent: the page's generated card. */
  socialImage?: string;
}

/** GitBook's semantic colours, as hints and announcements use them. */
export type HintStyle = "info" | "success" | "warning" | "danger";

/** Metadata for search engines and link previews. */
export interface ViewMeta {
  /** Full `<title>`. */
  title: string;
  description?: string;
  /** Absolute canonical URL. */
  canonicalUrl: string;
  /** Adds `<meta name="robots" content="noindex">`. */
  noindex: boolean;
  /** Absolute URL of the page's markdown (`<link rel="alternate" type="text/markdown">`). */
  markdownUrl?: string;
  /** OpenGraph site name. */
  siteName: string;
  /** Absolute URL of the link-preview image (`og:image`, `twitter:image`); absent for none. */
  image?: string;
}

/** Everything around a page body: the same for every page of a site-space and visitor. */
export interface ViewFrame {
  chrome: ViewSiteChrome;
  meta: ViewMeta;
  /** The site's home, with share key. */
  homeUrl: string;
  /** Where the search form goes (GET with `q`); "" shows no search form. */
  searchUrl: string;
  /** The reader's own path before `/_assets/…` ("" at the root of its host; e.g. "/sites"). */
  assetBase?: string;
  /** Top navigation (absent when the site has no sections). */
  sections?: ViewSectionEntry[];
  /** Site-space variants of the current section (versions, languages); shown when more than one. */
  variants?: ViewLink[];
  /** The current site-space's page tree. */
  tree: ViewTreeItem[];
  /** The `lang` attribute of the document (the site-space's language); "en" when unknown. */
  language: string;
  /** Absolute URLs of the site's integration scripts, loaded (async) at the end of the body; absent for none. */
  scripts?: readonly string[];
}

/** One page of documentation. */
export interface ViewPage extends ViewFrame {
  page: {
    title: string;
    /** Emoji icon of the page; absent for none. */
    emoji?: string;
    description?: string;
    /** The rendered body (from @imprint/document's HTML renderer): trusted, already sanitized. */
    bodyHtml: string;
    toc: ViewTocEntry[];
    breadcrumbs: ViewLink[];
    previous?: ViewLink;
    next?: ViewLink;
    /** When the page last changed (its revision's time). */
    lastUpdated?: Date;
    /** The page as markdown (for "Copy as markdown"/agents). */
    markdownUrl: string;
    /** The body holds a mermaid diagram: the page loads the script that draws it (views/diagrams.ts). */
    hasDiagram?: boolean;
    /** Where the page's file is edited in its space's synced repository, and that host's name; absent for none. */
    edit?: { url: string; host: string };
  };
}

/** A search result. */
export interface ViewSearchHit {
  title: string;
  url: string;
  /** A short excerpt, plain text. */
  excerpt: string;
  /** Breadcrumb-like context: the site-space/section it is in. */
  context?: string;
}

/** The search page: a query and its results (none before the visitor asks). */
export interface ViewSearch extends ViewFrame {
  query: string;
  hits: ViewSearchHit[];
}

/** A page the reader answers instead of content: not found, sign-in required. */
export interface ViewStatus {
  status: 401 | 404 | 429 | 503;
  title: string;
  message: string;
  /** Frame when the site is known and may be shown to this visitor; absent for a bare page. */
  frame?: ViewFrame;
  /** As {@link ViewFrame.assetBase}, for a bare page. */
  assetBase?: string;
  /** The bare page's `lang` (the site's language when known); "en" when absent. */
  language?: string;
}
