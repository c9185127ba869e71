import { fromHtml } from "hast-util-from-html";
import { select, selectAll } from "hast-util-select";
import { toString } from "hast-util-to-string";
import { describe, expect, it } from "vitest";
import type { ViewPage } from "../src/views/model.js";
import { renderPage } from "../src/views/render.js";

function page(options: { feedback?: boolean; language?: string } = {}): ViewPage {
  return {
    chrome: {
      title: "Acme",
      theme: { default: "system", toggleable: true },
      headerLinks: [],
      pagination: true,
      showLastUpdated: false,
      ...(options.feedback ? { feedback: true } : {}),
    },
    meta: { title: "Install · Acme", canonicalUrl: "https://read.example.com/acme/docs/install", noindex: false, siteName: "Acme" },
    homeUrl: "/acme/docs/",
    searchUrl: "/acme/docs/",
    tree: [],
    language: options.language ?? "en",
    page: { title: "Install", bodyHtml: "<p>Run it.</p>", toc: [], breadcrumbs: [], markdownUrl: "/acme/docs/install.md" },
  };
}

describe("'Was this page helpful?'", () => {
  it("is a form posted to the page itself, a button per rating and an optional comment, when the site has feedback on", () => {
    const tree = fromHtml(renderPage(page({ feedback: true })));
    const form = select("section.feedback form", tree)!;
    expect(form.properties.method).toBe("post");
    // No action: the browser posts to the page's own URL, without script.
    expect(form.properties.action).toBeUndefined();
    expect(toString(select("h2", form)!)).toBe("Was this page helpful?");
    expect(selectAll('button[type="submit"][name="rating"]', form).map((button) => [button.properties.value, toString(button)])).toEqual([
      ["good", "Yes"],
      ["ok", "Somewhat"],
      ["bad", "No"],
    ]);
    const comment = select("textarea#feedback-comment", form)!;
    expect(comment.properties.name).toBe("comment");
    expect(select('label[for="feedback-comment"]', form)).toBeDefined();
    // The thank-you note the reader's 303 comes back to (shown by CSS :target).
    expect(toString(select("#feedback-sent", tree)!)).toBe("Thank you for your feedback.");
  });

  it("speaks the site-space's language", () => {
    expect(toString(select("section.feedback h2", fromHtml(renderPage(page({ feedback: true, language: "fr" }))))!)).toBe(
      "Cette page vous a-t-elle été utile ?",
    );
    expect(toString(select("section.feedback h2", fromHtml(renderPage(page({ feedback: true, language: "ja" }))))!)).toBe("このページは役に立ちましたか？");
  });

  it("is absent when the site has feedback off", () => {
    const tree = fromHtml(renderPage(page()));
    expect(select("section.feedback", tree)).toBeUndefined();
    expect(select('form[method="post"]', tree)).toBeUndefined();
  });
});
