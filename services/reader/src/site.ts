import type { GetPublishedSpaceResponse } from "@imprint/proto/content/v1/published";
import { PageType, type Page } from "@imprint/proto/content/v1/revisions";
import type { GetReaderSiteResponse, ReaderItem, ReaderSection, ReaderSiteSpace } from "@imprint/proto/publishing/v1/reader";
import { evaluateCondition, type ConditionContext } from "@imprint/document";
import { readerFont } from "./views/fonts.js";
import type { HintStyle, ViewLink, ViewSectionEntry, ViewSiteChrome, ViewTreeItem } from "./views/model.js";

/**
 * How a reader URL maps onto a published site: after the site's base (and its share key), the
 * section's path (sites with sections; the default section when the segment names none), the
 * site-space's path (the level's default when the segment names none), then the page's path.
 * What a visitor may not see (conditions false for them) does not exist here.
 */

export type ReaderSite = GetReaderSiteResponse;

/** The sections of the site a visitor sees, in structure order (groups flattened), with their visible site-spaces. */
export function visibleSections(site: ReaderSite, context: ConditionContext): ReaderSection[] {
  const walk = (items: ReaderItem[]): ReaderSection[] =>
    items.flatMap((item) => {
      if (item.section)
        return evaluateCondition(item.section.condition, context) ? [{ ...item.section, siteSpaces: visibleSiteSpaces(item.section.siteSpaces, context) }] : [];
      if (item.group) return walk(item.group.children);
      return [];
    });
  return walk(site.items).filter((section) => section.siteSpaces.length > 0);
}

export function visibleSiteSpaces(siteSpaces: ReaderSiteSpace[], context: ConditionContext): ReaderSiteSpace[] {
  return siteSpaces.filter((siteSpace) => evaluateCondition(siteSpace.condition, context));
}

/** The level's default as the visitor sees it: its own when visible, else its first. */
function defaultOf<T extends { default: boolean }>(items: T[]): T | undefined {
  return items.find((item) => item.default) ?? items[0];
}

export interface Location {
  section: ReaderSection | null;
  siteSpace: ReaderSiteSpace;
  /** The site-space's level: its section's site-spaces, or the site's. */
  variants: ReaderSiteSpace[];
  /** The page path inside the space ("" for its first page). */
  pagePath: string;
  /** The base of the site-space's pages: site base + section path + site-space path, as needed. */
  prefix: string;
}

/** Where `segments` (after the site's base) lead, for this visitor; null when nowhere. */
export function locate(site: ReaderSite, segments: string[], context: ConditionContext, base: string): Location | null {
  let rest = [...segments];
  let section: ReaderSection | null = null;
  let levelPrefix = base;
  let siteSpaces: ReaderSiteSpace[];
  if (site.items.length > 0) {
    const sections = visibleSections(site, context);
    const named = sections.find((candidate) => candidate.path === rest[0]);
    section = named ?? defaultOf(sections) ?? null;
    if (!section) return null;
    if (named) rest = rest.slice(1);
    if (!section.default || named) levelPrefix = `${base}${encodeURIComponent(section.path)}/`;
    siteSpaces = section.siteSpaces;
  } else {
    siteSpaces = visibleSiteSpaces(site.siteSpaces, context);
  }
  const namedSpace = siteSpaces.find((candidate) => candidate.path === rest[0] && !candidate.default);
  const siteSpace = namedSpace ?? defaultOf(siteSpaces);
  if (!siteSpace) return null;
  if (namedSpace) rest = rest.slice(1);
  const prefix = siteSpace.default || siteSpace === defaultOf(siteSpaces) ? levelPrefix : `${levelPrefix}${encodeURIComponent(siteSpace.path)}/`;
  return { section, siteSpace, variants: siteSpaces, pagePath: rest.join("/"), prefix };
}

/** A site-space the visitor sees, where its pages are read. */
export interface PlacedSiteSpace {
  siteSpace: ReaderSiteSpace;
  section: ReaderSection | null;
  /** The base of its pages (as {@link Location.prefix}). */
  prefix: string;
  /** Whether it is its level's default (the one a section's or the site's address opens). */
  primary: boolean;
}

/** Every site-space the visitor sees, in structure order, with the base of its pages. */
export function placedSiteSpaces(site: ReaderSite, context: ConditionContext, base: string): PlacedSiteSpace[] {
  const place = (siteSpaces: ReaderSiteSpace[], levelPrefix: string, section: ReaderSection | null): PlacedSiteSpace[] => {
    const primary = defaultOf(siteSpaces);
    return siteSpaces.map((siteSpace) => ({ siteSpace, section, prefix: siteSpaceUrl(levelPrefix, siteSpace, siteSpaces), primary: siteSpace === primary }));
  };
  if (site.items.length === 0) return place(visibleSiteSpaces(site.siteSpaces, context), base, null);
  return visibleSections(site, context).flatMap((section) =>
    place(section.siteSpaces, section.default ? base : `${base}${encodeURIComponent(section.path)}/`, section),
  );
}

/** The URL of a site-space's first page: its level's prefix, plus its own path unless it is the default. */
export function siteSpaceUrl(levelPrefix: string, siteSpace: ReaderSiteSpace, siteSpaces: ReaderSiteSpace[]): string {
  return siteSpace === defaultOf(siteSpaces) ? levelPrefix : `${levelPrefix}${encodeURIComponent(siteSpace.path)}/`;
}

function collectReadable(pages: Page[], into: Page[]): Page[] {
  for (const page of pages) {
    if (page.type === PageType.PAGE_TYPE_DOCUMENT) into.push(page);
    collectReadable(page.pages, into);
  }
  return into;
}

/** A space's page tree indexed once: the reader keeps the tree per revision, so every request after the first reuses this. */
interface PageIndex {
  ordered: Page[];
  byPath: Map<string, Page>;
}
const pageIndexes = new WeakMap<Page[], PageIndex>();

function pageIndex(pages: Page[]): PageIndex {
  let index = pageIndexes.get(pages);
  if (!index) {
    const ordered = collectReadable(pages, []);
    index = { ordered, byPath: new Map(ordered.map((page) => [page.path, page])) };
    pageIndexes.set(pages, index);
  }
  return index;
}

/** Every readable page of a space in reading order (groups and links skipped; hidden pages kept: they have URLs). */
export function readingOrder(pages: Page[]): Page[] {
  return pageIndex(pages).ordered;
}

/** The page at `path` ("" is the first readable page). */
export function findPage(space: GetPublishedSpaceResponse, path: string): Page | undefined {
  const { ordered, byPath } = pageIndex(space.pages);
  if (path === "") return ordered.find((page) => !page.hidden) ?? ordered[0];
  return byPath.get(path);
}

/** The pages from the top of the space to `page` (for breadcrumbs), `page` excluded. */
export function ancestorsOf(pages: Page[], target: Page): Page[] {
  for (const page of pages) {
    if (page.id === target.id) return [];
    const below = ancestorsOf(page.pages, target);
    if (below.length > 0 || page.pages.some((child) => child.id === target.id)) return [page, ...below];
  }
  return [];
}

const pageUrl = (prefix: string, page: Page) => `${prefix}${page.path.split("/").map(encodeURIComponent).join("/")}`;

/** The space's page tree for the sidebar (hidden pages left out), the current page and its branch open. */
export function pageTree(pages: Page[], prefix: string, current: Page, first: Page | undefined): ViewTreeItem[] {
  const open = new Set([...ancestorsOf(pages, current).map((page) => page.id), current.id]);
  const build = (list: Page[]): ViewTreeItem[] =>
    list
      .filter((page) => !page.hidden)
      .map((page): ViewTreeItem => {
        if (page.type === PageType.PAGE_TYPE_GROUP) return { kind: "group", title: page.title, url: "#", children: build(page.pages) };
        if (page.type === PageType.PAGE_TYPE_LINK) return { kind: "link", title: page.title, url: page.href || "#", external: true, children: [] };
        const url = first && page.id === first.id ? prefix : pageUrl(prefix, page);
        return { kind: "page", title: page.title, url, active: page.id === current.id, expanded: open.has(page.id), children: build(page.pages) };
      });
  return build(pages);
}

/** A page's URL under the site-space's prefix (its first page at the prefix itself). */
export function urlOfPage(prefix: string, page: Page, first: Page | undefined): string {
  return first && page.id === first.id ? prefix : pageUrl(prefix, page);
}

/** The site's top navigation (sections, groups, external links) the visitor sees. */
export function sectionEntries(site: ReaderSite, context: ConditionContext, base: string, current: ReaderSection | null): ViewSectionEntry[] {
  const walk = (items: ReaderItem[]): ViewSectionEntry[] =>
    items.flatMap((item): ViewSectionEntry[] => {
      if (item.link) return evaluateCondition(item.link.condition, context) ? [{ title: item.link.title, url: item.link.url, external: true }] : [];
      if (item.group) {
        const children = walk(item.group.children);
        return children.length > 0 ? [{ title: item.group.title, url: "#", children, ...(item.group.icon ? { icon: item.group.icon } : {}) }] : [];
      }
      const section = item.section!;
      if (!evaluateCondition(section.condition, context) || visibleSiteSpaces(section.siteSpaces, context).length === 0) return [];
      return [
        {
          title: section.title,
          url: section.default ? base : `${base}${encodeURIComponent(section.path)}/`,
          active: section.id === current?.id,
          ...(section.icon ? { icon: section.icon } : {}),
        },
      ];
    });
  return walk(site.items);
}

type Themed = { light?: unknown; dark?: unknown };

interface Customization {
  title?: unknown;
  localizedTitle?: Record<string, unknown>;
  styling?: {
    primaryColor?: Themed;
    infoColor?: Themed;
    successColor?: Themed;
    warningColor?: Themed;
    dangerColor?: Themed;
    corners?: unknown;
    links?: unknown;
    font?: unknown;
    headingFont?: unknown;
  };
  themes?: { default?: unknown; toggeable?: unknown };
  header?: { logo?: Themed; links?: { title?: unknown; to?: { kind?: unknown; url?: unknown } }[] };
  footer?: { logo?: Themed; groups?: { title?: unknown; links?: { title?: unknown; to?: { kind?: unknown; url?: unknown } }[] }[]; copyright?: unknown };
  favicon?: { icon?: { light?: unknown } };
  pagination?: { enabled?: unknown };
  feedback?: { enabled?: unknown };
  announcement?: {
    enabled?: unknown;
    message?: unknown;
    localizedMessage?: Record<string, unknown>;
    style?: unknown;
    link?: { to?: { kind?: unknown; url?: unknown } };
  };
  externalLinks?: { target?: unknown };
  privacyPolicy?: { url?: unknown };
  socialPreview?: { url?: unknown };
}

const text = (value: unknown) => (typeof value === "string" ? value : undefined);
const HEX = /^#[0-9a-f]{3}([0-9a-f]{3})?$/i;

/** A customization link's target as a URL (only URL targets are links the reader can follow). */
function linkOf(link: { title?: unknown; to?: { kind?: unknown; url?: unknown } }): ViewLink | null {
  const title = text(link.title);
  const url = link.to?.kind === "url" ? text(link.to.url) : undefined;
  return title && url && /^https?:\/\//i.test(url) ? { title, url, external: true } : null;
}

const webUrl = (value: unknown) => {
  const url = text(value);
  return url && /^https?:\/\//i.test(url) ? url : undefined;
};

/** A colour per mode, when its light one is a hex colour (the dark one too, else the light serves both). */
function themedColor(value: Themed | undefined): { light: string; dark?: string } | undefined {
  const light = text(value?.light);
  const dark = text(value?.dark);
  return light && HEX.test(light) ? { light, ...(dark && HEX.test(dark) ? { dark } : {}) } : undefined;
}

/** A URL per mode (logos), when the light one is a web URL. */
function themedUrl(value: Themed | undefined): { light: string; dark?: string } | undefined {
  const light = webUrl(value?.light);
  const dark = webUrl(value?.dark);
  return light ? { light, ...(dark && dark !== light ? { dark } : {}) } : undefined;
}

const HINT_STYLES: readonly HintStyle[] = ["info", "success", "warning", "danger"];
const CORNERS = new Set(["straight", "rounded", "circular"]);

/** The look settings of a customization the reader shows beyond its chrome's basics: fonts, corners, colours, banner, links. */
function lookOf(customization: Customization, language: string): Partial<ViewSiteChrome> {
  const styling = customization.styling ?? {};
  const body = readerFont(styling.font);
  // No heading font (null) means the body's: only another served font is a second file.
  const chosenHeading = readerFont(styling.headingFont);
  const heading = chosenHeading && chosenHeading.family !== body?.family ? chosenHeading : undefined;
  const hintColors = Object.fromEntries(
    HINT_STYLES.map((style) => [style, themedColor(styling[`${style}Color`])] as const).filter((entry) => entry[1] !== undefined),
  ) as ViewSiteChrome["hintColors"];
  const banner = customization.announcement;
  const message = text(banner?.localizedMessage?.[language]) ?? text(banner?.message);
  const bannerUrl = banner?.link?.to?.kind === "url" ? webUrl(banner.link.to.url) : undefined;
  const footerLogo = themedUrl(customization.footer?.logo);
  const privacyPolicyUrl = webUrl(customization.privacyPolicy?.url);
  const socialImage = webUrl(customization.socialPreview?.url);
  return {
    ...(body || heading ? { fonts: { ...(body ? { body } : {}), ...(heading ? { heading } : {}) } } : {}),
    ...(typeof styling.corners === "string" && CORNERS.has(styling.corners) ? { corners: styling.corners as NonNullable<ViewSiteChrome["corners"]> } : {}),
    ...(styling.links === "accent" ? { accentLinks: true } : {}),
    ...(hintColors && Object.keys(hintColors).length > 0 ? { hintColors } : {}),
    ...(banner?.enabled === true && message
      ? {
          announcement: {
            message,
            style: HINT_STYLES.includes(banner.style as HintStyle) ? (banner.style as HintStyle) : "info",
            ...(bannerUrl ? { url: bannerUrl } : {}),
          },
        }
      : {}),
    ...(customization.externalLinks?.target === "blank" ? { externalLinksInNewTab: true } : {}),
    ...(footerLogo ? { footerLogo } : {}),
    ...(privacyPolicyUrl ? { privacyPolicyUrl } : {}),
    ...(socialImage ? { socialImage } : {}),
  };
}

/**
 * The site's chrome from its customization (GitBook's SiteCustomizationSettings), with the words
 * the customization localizes (title, announcement) in `language`, the space's.
 */
export function chromeOf(site: ReaderSite, customizationJson: string, language = ""): ViewSiteChrome {
  const customization = JSON.parse(customizationJson || "{}") as Customization;
  const look = lookOf(customization, language);
  const newTab = look.externalLinksInNewTab === true;
  const linkIn = (link: { title?: unknown; to?: { kind?: unknown; url?: unknown } }) => {
    const found = linkOf(link);
    return found && newTab ? { ...found, newTab } : found;
  };
  const light = text(customization.styling?.primaryColor?.light);
  const dark = text(customization.styling?.primaryColor?.dark);
  const themeDefault = text(customization.themes?.default);
  const logo = themedUrl(customization.header?.logo);
  const favicon = text(customization.favicon?.icon?.light);
  const footer = customization.footer;
  return {
    title: text(customization.localizedTitle?.[language]) ?? text(customization.title) ?? site.title,
    ...(logo ? { logo } : {}),
    ...(favicon && /^https?:\/\//i.test(favicon) ? { favicon } : {}),
    ...(light && HEX.test(light) ? { primaryColor: { light, ...(dark && HEX.test(dark) ? { dark } : {}) } } : {}),
    theme: { default: themeDefault === "light" || themeDefault === "dark" ? themeDefault : "system", toggleable: customization.themes?.toggeable !== false },
    headerLinks: (customization.header?.links ?? []).map(linkIn).filter((link): link is ViewLink => link !== null),
    ...(footer
      ? {
          footer: {
            groups: (footer.groups ?? []).map((group) => ({
              title: text(group.title) ?? "",
              links: (group.links ?? []).map(linkIn).filter((link): link is ViewLink => link !== null),
            })),
            ...(text(footer.copyright) ? { copyright: text(footer.copyright)! } : {}),
          },
        }
      : {}),
    pagination: customization.pagination?.enabled !== false,
    showLastUpdated: true,
    ...(customization.feedback?.enabled === true ? { feedback: true } : {}),
    ...look,
  };
}
