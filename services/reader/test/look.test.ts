import { fromHtml } from "hast-util-from-html";
import { select, selectAll } from "hast-util-select";
import { toString } from "hast-util-to-string";
import { describe, expect, it } from "vitest";
import { chromeOf, type ReaderSite } from "../src/site.js";
import { cardHash, cardSvg, renderCard } from "../src/views/card.js";
import { fontFile, readerFont, SERVED_FONTS } from "../src/views/fonts.js";
import type { ViewFrame, ViewPage } from "../src/views/model.js";
import { inlineStyleOf, renderPage, renderStatus } from "../src/views/render.js";

const site = { title: "Acme" } as ReaderSite;

const customization = {
  title: "Acme Docs",
  localizedTitle: { fr: "Docs d’Acme" },
  styling: {
    primaryColor: { light: "#346DDB", dark: "#7AA2FF" },
    warningColor: { light: "#FE9A00", dark: "#FFB84D" },
    corners: "straight",
    links: "accent",
    font: "Inter",
    headingFont: "Merriweather",
  },
  header: {
    logo: { light: "https://cdn.example.com/logo-light.png", dark: "https://cdn.example.com/logo-dark.png" },
    links: [{ title: "Status", to: { kind: "url", url: "https://status.example.com" } }],
  },
  footer: { logo: { light: "https://cdn.example.com/footer.png", dark: "https://cdn.example.com/footer.png" }, groups: [] },
  announcement: {
    enabled: true,
    message: "Version 2 is out",
    localizedMessage: { fr: "La version 2 est sortie" },
    style: "warning",
    link: { title: "Read", to: { kind: "url", url: "https://example.com/v2" } },
  },
  externalLinks: { target: "blank" },
  privacyPolicy: { url: "https://example.com/privacy" },
  socialPreview: { url: "https://cdn.example.com/card.png" },
};

function frameOf(chrome: ViewFrame["chrome"], language = "en"): ViewFrame {
  return {
    chrome,
    meta: { title: "Install · Acme", canonicalUrl: "https://read.example.com/acme/docs/install", noindex: false, siteName: chrome.title },
    homeUrl: "/acme/docs/",
    searchUrl: "/acme/docs/",
    assetBase: "/sites",
    tree: [
      { kind: "page", title: "Welcome", url: "/acme/docs/", children: [] },
      { kind: "page", title: "Install", url: "/acme/docs/install", children: [] },
    ],
    language,
  };
}

function pageOf(frame: ViewFrame): ViewPage {
  return { ...frame, page: { title: "Install", bodyHtml: "<p>Run it.</p>", toc: [], breadcrumbs: [], markdownUrl: "/acme/docs/install.md" } };
}

describe("the site's look", () => {
  it("reads every setting of the customization the reader shows", () => {
    const chrome = chromeOf(site, JSON.stringify(customization), "fr");
    expect(chrome).toMatchObject({
      title: "Docs d’Acme",
      logo: { light: "https://cdn.example.com/logo-light.png", dark: "https://cdn.example.com/logo-dark.png" },
      fonts: { body: { family: "Inter Variable" }, heading: { family: "Merriweather Variable" } },
      corners: "straight",
      accentLinks: true,
      hintColors: { warning: { light: "#FE9A00", dark: "#FFB84D" } },
      announcement: { message: "La version 2 est sortie", style: "warning", url: "https://example.com/v2" },
      externalLinksInNewTab: true,
      headerLinks: [{ title: "Status", url: "https://status.example.com", external: true, newTab: true }],
      // The same URL for both modes is one logo.
      footerLogo: { light: "https://cdn.example.com/footer.png" },
      privacyPolicyUrl: "https://example.com/privacy",
      socialImage: "https://cdn.example.com/card.png",
    });
    expect(chromeOf(site, JSON.stringify(customization), "de").title).toBe("Acme Docs");
    // Fonts the reader does not serve (GitBook's own, custom ones) read in the system stack; a heading font equal to the body's is no second file.
    expect(chromeOf(site, JSON.stringify({ styling: { font: "ABCFavorit" } })).fonts).toBeUndefined();
    expect(chromeOf(site, JSON.stringify({ styling: { font: { fontFamily: "Mine", fontFaces: [] } } })).fonts).toBeUndefined();
    expect(chromeOf(site, JSON.stringify({ styling: { font: "Roboto", headingFont: "Roboto" } })).fonts).toEqual({ body: readerFont("Roboto") });
    // Not enabled, or not a web URL: nothing.
    const off = chromeOf(
      site,
      JSON.stringify({ announcement: { ...customization.announcement, enabled: false }, privacyPolicy: { url: "javascript:alert(1)" } }),
    );
    expect(off.announcement).toBeUndefined();
    expect(off.privacyPolicyUrl).toBeUndefined();
  });

  it("serves the chosen fonts itself: only their files preloaded, swapped in, from the reader's own assets", () => {
    const chrome = chromeOf(site, JSON.stringify(customization));
    const view = pageOf(frameOf(chrome));
    const tree = fromHtml(renderPage(view));
    const preloads = selectAll('link[rel="preload"][as="font"]', tree).map((node) => String(node.properties.href));
    expect(preloads).toEqual([`/sites${readerFont("Inter")!.path}`, `/sites${readerFont("Merriweather")!.path}`]);
    const style = toString(select("style", tree)!);
    expect(style).toBe(inlineStyleOf(view));
    expect(style).toContain(`src:url(/sites${readerFont("Inter")!.path}) format("woff2")`);
    expect(style).toContain("font-display:swap");
    expect(style).toContain(`h1,h2,h3,h4,.brand{font-family:"Merriweather Variable",`);
    expect(style).not.toMatch(/https?:\/\/[^)]*\.woff2/);
    for (const name of SERVED_FONTS) {
      const font = readerFont(name)!;
      expect(font.path).toMatch(/^\/_assets\/font-[a-z0-9]+\.[\w-]{12}\.woff2$/);
      const file = fontFile(font.path)!;
      expect(file.body.subarray(0, 4).toString("latin1")).toBe("wOF2");
      expect(file.body.byteLength).toBeLessThan(120 * 1024);
    }
    // A site without a served font links no font file.
    const plain = fromHtml(renderPage(pageOf(frameOf(chromeOf(site, JSON.stringify({ styling: { font: "Poppins" } }))))));
    expect(selectAll('link[rel="preload"]', plain)).toHaveLength(0);
  });

  it("shows the dark logo in dark mode, by the reader's toggle or the system's preference, and the banner and footer extras", () => {
    const tree = fromHtml(renderPage(pageOf(frameOf(chromeOf(site, JSON.stringify(customization), "fr"), "fr"))));
    expect(selectAll("header .brand img", tree).map((node) => [String(node.properties.className), node.properties.src])).toEqual([
      ["logo-light", "https://cdn.example.com/logo-light.png"],
      ["logo-dark", "https://cdn.example.com/logo-dark.png"],
    ]);
    const style = toString(select("style", tree)!);
    expect(style).toContain(":root[data-theme=dark] .logo-dark{display:block}");
    expect(style).toContain("@media (prefers-color-scheme:dark){:root:not([data-theme=light]) .logo-light{display:none}");
    expect(style).toContain("border-radius:0!important");
    const banner = select(".announcement.announcement-warning a", tree)!;
    expect([toString(banner), banner.properties.href, banner.properties.target]).toEqual(["La version 2 est sortie", "https://example.com/v2", "_blank"]);
    expect(select("header nav.links a", tree)!.properties.target).toBe("_blank");
    expect(select('footer a[rel="privacy-policy"]', tree)!.properties.href).toBe("https://example.com/privacy");
    expect(toString(select('footer a[rel="privacy-policy"]', tree)!)).toBe("Politique de confidentialité");
    expect(selectAll("footer .footer-logo img", tree)).toHaveLength(1);
    // One logo without a dark one: a plain image, no switch.
    const single = chromeOf(site, JSON.stringify({ header: { logo: { light: "https://cdn.example.com/l.png", dark: "https://cdn.example.com/l.png" } } }));
    const plain = fromHtml(renderPage(pageOf(frameOf(single))));
    expect(selectAll("header .brand img", plain).map((node) => node.properties.className)).toEqual([undefined]);
    expect(inlineStyleOf(frameOf(single)) ?? "").not.toContain("logo-dark");
  });

  it("renders the not-found page in the site's frame: its header, search, navigation and look, in the space's language", () => {
    const frame = frameOf(chromeOf(site, JSON.stringify(customization), "de"), "de");
    const tree = fromHtml(renderStatus({ status: 404, title: "Seite nicht gefunden", message: "Unter dieser Adresse gibt es keine Seite.", frame }));
    expect(select("html", tree)!.properties.lang).toBe("de");
    expect(toString(select("main h1", tree)!)).toBe("Seite nicht gefunden");
    expect(select("main a.home", tree)).toMatchObject({ properties: { href: "/acme/docs/" } });
    expect(toString(select("main a.home", tree)!)).toBe("Zur Startseite");
    expect(select('header form[role="search"]', tree)!.properties.action).toBe("/acme/docs/");
    expect(selectAll("aside.tree a", tree).map((node) => toString(node))).toEqual(["Welcome", "Install"]);
    expect(toString(select("style", tree)!)).toContain("Inter Variable");
    expect(select('link[rel="preload"][as="font"]', tree)).toBeDefined();
  });

  it("draws each page's link-preview card as a bounded PNG named by its content, and links it as og:image", async () => {
    const content = { siteTitle: "Acme Docs", pageTitle: "Install the frobnicator", color: "#0A7C66" };
    await renderCard(content);
    const started = performance.now();
    const png = await renderCard(content);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
    expect(png.byteLength).toBeLessThan(200 * 1024);
    // Text is drawn as outlines (the rasterizer needs no font), in the site's colour.
    const svg = cardSvg(content);
    expect(svg).not.toContain("<text");
    expect(svg).toContain('fill="#0A7C66"');
    // A title too long for three lines is cut; the drawing stays bounded whatever the title.
    const long = cardSvg({ ...content, pageTitle: "word ".repeat(2_000) });
    expect(long.length).toBeLessThan(200 * 1024);
    expect(cardHash(content)).toBe(cardHash({ ...content }));
    expect(cardHash(content)).not.toBe(cardHash({ ...content, pageTitle: "Configure" }));

    const image = "https://read.example.com/acme/docs/~og/p1.png?v=abc";
    const tree = fromHtml(renderPage(pageOf({ ...frameOf(chromeOf(site, "{}")), meta: { ...frameOf(chromeOf(site, "{}")).meta, image } })));
    expect(select('meta[property="og:image"]', tree)!.properties.content).toBe(image);
    expect(select('meta[name="twitter:image"]', tree)!.properties.content).toBe(image);
    expect(select('meta[name="twitter:card"]', tree)!.properties.content).toBe("summary_large_image");
  });
});
