import type { ElementContent } from "hast";
import { h } from "hastscript";
import type { ViewPage } from "./model.js";
import type { ReaderWords } from "./words.js";

/** The id of the thank-you note a posted feedback comes back to (`#feedback-sent`: shown by CSS `:target`). */
export const FEEDBACK_SENT_ID = "feedback-sent";

/**
 * "Was this page helpful?" when the site has feedback on: a form posted to the page itself (no
 * action: the page's own URL), a button per rating (GitBook's good, ok, bad) and an optional
 * comment; the reader answers 303 back to the page's thank-you note. Works without script.
 */
export function feedbackForm(view: ViewPage, words: ReaderWords): ElementContent[] {
  if (!view.chrome.feedback) return [];
  const { feedback } = words;
  return [
    h("section.feedback", { "aria-labelledby": "feedback-question" }, [
      h(`p#${FEEDBACK_SENT_ID}.feedback-sent`, { role: "status" }, feedback.thanks),
      h("form", { method: "post" }, [
        h("h2#feedback-question", feedback.question),
        h("div.ratings", [
          h("button", { type: "submit", name: "rating", value: "good" }, feedback.good),
          h("button", { type: "submit", name: "rating", value: "ok" }, feedback.ok),
          h("button", { type: "submit", name: "rating", value: "bad" }, feedback.bad),
        ]),
        h("label", { for: "feedback-comment" }, feedback.comment),
        h("textarea#feedback-comment", { name: "comment", maxLength: 512, rows: 2 }),
      ]),
    ]),
  ];
}
