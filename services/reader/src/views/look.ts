import type { ElementContent } from "hast";
import { h } from "hastscript";
import { fontCss } from "./fonts.js";
import type { ViewSiteChrome } from "./model.js";

/**
 * The site's look beyond the reader's own stylesheet, from its customization: fonts, corners, link
 * style, hint colours, the logos per mode and the announcement. What depends on the site is one
 * inline style (allowed by its hash in the page's policy); the markup is the header's brand, the
 * banner and the footer's extras.
 */

/** `property` set to a colour per mode: light by default, dark when the reader or the system is dark. */
function themed(selector: string, property: string, color: { light: string; dark?: string }): string {
  const dark = color.dark ?? color.light;
  return (
    `${selector}{${property}:${color.light}}:root[data-theme=dark] ${selector}{${property}:${dark}}` +
    `@media (prefers-color-scheme:dark){:root:not([data-theme=light]) ${selector}{${property}:${dark}}}`
  );
}

/** Shows `.logo-dark` instead of `.logo-light` in dark mode (the toggle's choice, else the system's). */
const LOGO_SWITCH =
  ".logo-dark{display:none}:root[data-theme=dark] .logo-light{display:none}:root[data-theme=dark] .logo-dark{display:block}" +
  "@media (prefers-color-scheme:dark){:root:not([data-theme=light]) .logo-light{display:none}:root:not([data-theme=light]) .logo-dark{display:block}}";

const CORNERS: Readonly<Record<NonNullable<ViewSiteChrome["corners"]>, string>> = {
  straight: "*,::before,::after{border-radius:0!important}",
  rounded: "",
  circular:
    "form.search input,button,.variants a,.live-results a{border-radius:999px}pre,.hint,.tabs,details.expandable,nav.pagination a,figure.embed a,p.card a{border-radius:1rem}",
};

/** The site's look as CSS ("" when it has nothing beyond the reader's defaults). */
export function lookStyleOf(chrome: ViewSiteChrome, assetBase: string): string {
  const parts: string[] = [];
  if (chrome.fonts?.body) parts.push(fontCss(chrome.fonts.body, assetBase, ":root"));
  if (chrome.fonts?.heading) parts.push(fontCss(chrome.fonts.heading, assetBase, "h1,h2,h3,h4,.brand"));
  if (chrome.corners) parts.push(CORNERS[chrome.corners]);
  if (chrome.accentLinks) parts.push("main a,footer.site a,header.site nav.links a{color:var(--fg);text-decoration-color:var(--accent)}");
  for (const [style, color] of Object.entries(chrome.hintColors ?? {})) {
    parts.push(themed(style === "info" ? `.hint-info,.announcement-info` : `.hint-${style},.announcement-${style}`, "border-color", color));
  }
  if (chrome.logo?.dark || chrome.footerLogo?.dark) parts.push(LOGO_SWITCH);
  if (chrome.announcement)
    parts.push(".announcement{border-bottom:4px solid var(--accent);background:var(--soft);padding:.5rem 1.25rem;text-align:center}.announcement p{margin:0}");
  return parts.join("");
}

/** The fonts' files a page asks for early (only the ones its look uses). */
export function fontPreloads(chrome: ViewSiteChrome, assetBase: string): ElementContent[] {
  const paths = [...new Set([chrome.fonts?.body?.path, chrome.fonts?.heading?.path].filter((path): path is string => path !== undefined))];
  return paths.map((path) => h("link", { rel: "preload", href: `${assetBase}${path}`, as: "font", type: "font/woff2", crossOrigin: "" }));
}

/** A logo per mode: the light one, and the dark one shown instead in dark mode. */
function logoImages(logo: { light: string; dark?: string }, alt: string, size: { width: number; height: number }): ElementContent[] {
  if (!logo.dark) return [h("img", { src: logo.light, alt, ...size })];
  return [h("img.logo-light", { src: logo.light, alt, ...size }), h("img.logo-dark", { src: logo.dark, alt, ...size })];
}

/** The header's brand: the site's logos (per mode), else its title; a link to the site's home. */
export function brand(chrome: ViewSiteChrome, homeUrl: string): ElementContent {
  return chrome.logo
    ? h("a.brand", { href: homeUrl }, logoImages(chrome.logo, chrome.title, { width: 160, height: 32 }))
    : h("a.brand", { href: homeUrl }, chrome.title);
}

/** The announcement banner, above the header; none when the site has none. */
export function announcement(chrome: ViewSiteChrome): ElementContent[] {
  const banner = chrome.announcement;
  if (!banner) return [];
  const text = banner.url
    ? h(
        "a",
        { href: banner.url, ...(chrome.externalLinksInNewTab && /^https?:/i.test(banner.url) ? { target: "_blank", rel: "noopener" } : {}) },
        banner.message,
      )
    : banner.message;
  return [h(`div.announcement.announcement-${banner.style}`, { role: "region", "aria-label": banner.message }, [h("p", [text])])];
}

/** What the footer holds besides its groups: the footer's logos and the privacy policy link. */
export function footerExtras(chrome: ViewSiteChrome, privacyPolicy: string): ElementContent[] {
  return [
    ...(chrome.footerLogo ? [h("p.footer-logo", logoImages(chrome.footerLogo, chrome.title, { width: 120, height: 24 }))] : []),
    ...(chrome.privacyPolicyUrl ? [h("p", [h("a", { href: chrome.privacyPolicyUrl, rel: "privacy-policy" }, privacyPolicy)])] : []),
  ];
}

/** A page's "Edit on GitHub/GitLab" link, under the page; none when the page has no file in a synced repository. */
export function editLink(edit: { url: string; host: string } | undefined, editOn: (host: string) => string): ElementContent[] {
  return edit ? [h("p.edit", [h("a", { href: edit.url, rel: "noopener" }, editOn(edit.host))])] : [];
}
