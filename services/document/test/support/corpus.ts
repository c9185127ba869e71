import fc from "fast-check";

/** Markdown covering every block, inline and mark of the model (and their nestings). */
export const CORPUS: Record<string, string> = {
  paragraph: "Hello world",
  marks: "a **b** _c_ `d` ~~e~~ ***f*** **bold _both_ bold** `code with ``ticks`` inside`",
  "intraword marks": "foo*bar*baz and snake_case_name and 2*3*4",
  "special characters": "1\\. not a list? \\* star \\_ under \\# hash <notatag> [brackets] | pipe & amp; &copy; 5 > 3",
  "leading spaces and breaks": "line one  \nline two\\\nline three\nsoft",
  headings: "# One\n\n## Two\n\n### Three\n\n#### Four becomes three\n\n# Title with `code` and **bold**",
  divider: "before\n\n---\n\nafter",
  "unordered list": "- one\n- two\n  - nested\n  - nested again\n- three",
  "ordered list": "3. three\n4. four\n\n1. one\n2. two",
  "task list": "- [ ] todo\n- [x] done\n- [ ] later",
  "loose list": "- one\n\n  second paragraph\n\n- two",
  code: "```ts\nconst a = 1;\n\n  indented();\n```\n\n```\nplain\n```\n\n    indented code",
  "code with fences inside": "````md\n```js\nx\n```\n````",
  quote: "> quoted **text**\n>\n> > nested quote\n\n> a quote with a list\n> - item",
  hints: "> [!NOTE]\n> a note\n\n> [!TIP]\n> a tip\n\n> [!WARNING]\n> careful\n>\n> - a list in a hint\n\n> [!CAUTION]\n> danger",
  gitbookHints: [
    '{% hint style="info" %}',
    "GitBook's **own** spelling",
    "{% endhint %}",
    "",
    '{% hint style="danger" %}',
    "- a list, then the end tag on the next line",
    "{% endhint %}",
    "",
    "- item",
    "",
    '  {% hint style="success" %}',
    "  a hint in a list item",
    "  {% endhint %}",
    "",
    '{% tabs %}\n{% tab title="A" %}\n{% hint style="warning" %}\nin a tab\n{% endhint %}\n{% endtab %}\n{% endtabs %}',
    "",
    '> {% hint style="info" %}\n> a hint in a quote is its content\n> {% endhint %}',
    "",
    '{% hint style="info" %}\n{% endhint %}',
  ].join("\n"),
  table: "| Name | Value | Right |\n|:-----|:-----:|------:|\n| **a** | `b` | [c](https://c.example) |\n| d | | f \\| g |",
  images: "![alt text](https://example.com/a.png)\n\n![one](/files/file1) ![two](https://example.com/b.png)",
  "inline images": "text ![icon](https://example.com/i.png) more [![badge](https://example.com/b.svg)](https://example.com)",
  links:
    "[url](https://example.com) [page](/pages/page1) [file](/files/file1) [anchor](#section) [page anchor](/pages/page1#part) <https://auto.example> **[bold link](https://b.example)**",
  "reference links": "[ref][r] and ![img][i]\n\n[r]: https://example.com/ref\n[i]: https://example.com/i.png",
  "nested containers":
    "- item\n\n  > quote in item\n\n  ```sh\n  code in item\n  ```\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n\n> [!NOTE]\n> - list in hint\n>\n> | x |\n> |---|\n> | y |",
  "degraded forms": "> ```js\n> code in quote\n> ```\n\n> ![img](https://example.com/q.png)",
  html: "<div>block html</div>\n\ntext with <b>inline</b> html",
  empty: "",
  "empty items": "-\n- \n\n>",
  footnotes: "text[^1]\n\n[^1]: the note",
  "unicode and entities": "héllo — “quotes” &nbsp; tab\there",
  tabs: [
    "{% tabs %}",
    '{% tab title="Windows" %}',
    "Run the **installer**.",
    "",
    "```powershell",
    "winget install imprint",
    "```",
    "{% endtab %}",
    "",
    '{% tab title="Linux *and* &quot;BSD&quot; \\ & more" %}',
    "## Install",
    "",
    "- apt",
    "- pkg",
    "",
    "> [!TIP]",
    "> a tip",
    "",
    '{% embed url="https://example.com/video" %}',
    "",
    "$$",
    "a^2 + b^2 = c^2",
    "$$",
    "{% endtab %}",
    '{% tab title="" %}',
    "{% endtab %}",
    "{% endtabs %}",
  ].join("\n"),
  "tabs without blank lines":
    '{% tabs %}\n{% tab title="A" %}\none  \ntwo\\\n{% endtab %}\n{% tab title="B" %}\n- item\n{% endtab %}\n\n{% tab title="C" %}\n> [!TIP]\n> tip\n{% endtab %}\n{% endtabs %}\n\n- item\n{% endtab %}',
  expandables: [
    "<details>",
    "",
    "<summary>Why &amp; <b>how</b> &lt;x&gt;?</summary>",
    "",
    "Because **reasons**.",
    "",
    "```js",
    "x();",
    "```",
    "",
    "| a |",
    "|---|",
    "| 1 |",
    "",
    "> [!WARNING]",
    "> careful",
    "",
    "![pic](https://example.com/p.png)",
    "",
    "</details>",
    "",
    "<details open><summary>Open</summary>",
    "",
    "</details>",
  ].join("\n"),
  embeds:
    '{% embed url="https://example.com/a" %}\n\n{% embed url="https://example.com/b?x=1&amp;y=2" %}\nA caption\n{% endembed %}\n\n> [!NOTE]\n> {% embed url="https://example.com/c" %}',
  math: "$$\n\\frac{a_1 * b_2}{c} \\{x\\} \\\\\n  y\n$$\n\n$$x^2$$\n\n- $$\n  a \\pm b\n  $$\n\n1. item\n\n   $$\n   c\n   $$",
  "GitBook blocks degraded": [
    "> {% tabs %}",
    '> {% tab title="In a quote" %}',
    "> text",
    "> {% endtab %}",
    "> {% endtabs %}",
    "",
    '- {% embed url="https://example.com/in-list" %}',
    "",
    "> $$",
    "> x",
    "> $$",
    "",
    "{% tabs %}",
    '{% tab title="T" %}',
    "| a |",
    "|---|",
    "| 1 |",
    "",
    "<details>",
    "<summary>In a tab</summary>",
    "",
    "body",
    "",
    "</details>",
    "",
    "{% endtab %}",
    "{% endtabs %}",
    "",
    "<details>",
    "<summary>S</summary>",
    "",
    '{% embed url="https://example.com/in-expandable" %}',
    "",
    "$$",
    "y",
    "$$",
    "",
    "</details>",
  ].join("\n"),
  "malformed GitBook markers": [
    "{% tabs %}",
    '{% tab title="A" %}',
    "x",
    "{% endtabs %}",
    "",
    "{% endtab %}",
    "",
    "{% embed %}",
    "",
    "{% endembed %}",
    "",
    "\\{% tabs %}",
    "",
    "\\$$",
    "x",
    "$$",
    "",
    "<details>",
    "<summary>Never closed</summary>",
    "",
    "</details>",
    "</details>",
    "",
    '{% mystery kind="info" %}',
    "unknown tag",
    "{% endmystery %}",
    "",
    '{% hint style="pink" %}',
    "unknown style",
    "{% endhint %}",
  ].join("\n"),
};

// Backticks only in code spans (a code span across lines reads back with a space for the newline),
// no parentheses (`[]()` is an empty link to nowhere).
const word = fc.stringMatching(/^[A-Za-z0-9 *_~#>|\\[\]!-]{1,12}$/);
const inline = fc.oneof(
  word,
  word.map((w) => `**${w.trim() || "b"}**`),
  word.map((w) => `_${w.trim() || "i"}_`),
  word.map((w) => `\`${w.replace(/`/g, "") || "c"}\``),
  word.map((w) => `[${w.replace(/[[\]\\]/g, "").trim() || "l"}](/pages/p1)`),
);
const line = fc.array(inline, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(" "));
/** A summary: printable text, quotes, entities and markup included. */
const title = fc.stringMatching(/^[A-Za-z0-9 *_~#>|\\[\]!&;"<>/=-]{0,16}$/).map((text) => text.replace(/&(?=[A-Za-z#])/g, "& "));
/**
 * A tab title: the same without `<` (in a paragraph line, `<!x` would open inline HTML that runs
 * over the next lines, and inline HTML is kept as text, which reads back differently if it holds a URL).
 */
const tabTitle = title.map((text) => text.replace(/</g, "("));
// Formula lines are never blank (a blank line ends the paragraph, and the markdown is no formula).
const formulaLine = fc.stringMatching(/^[A-Za-z0-9\\{}^_*+=()|-][A-Za-z0-9 \\{}^_*+=()|-]{0,15}$/);
const formula = fc.array(formulaLine, { minLength: 1, maxLength: 3 }).map((lines) => lines.join("\n"));
const url = fc.constantFrom("https://example.com/a", "https://example.com/a_b*c*?x=1&y=2", "http://example.com/", "/pages/p1", "ftp://example.com/f");

const simpleBlock = fc.oneof(
  line,
  line.map((l) => `## ${l}`),
  fc.array(line, { minLength: 1, maxLength: 3 }).map((ls) => ls.map((l) => `- ${l}`).join("\n")),
  fc.array(line, { minLength: 1, maxLength: 3 }).map((ls) => ls.map((l) => `> ${l}`).join("\n")),
  line.map((l) => `> [!TIP]\n> ${l}`),
  line.map((l) => "```\n" + l.replace(/`/g, "") + "\n```"),
  formula.map((f) => `$$\n${f}\n$$`),
  formula.map((f) => `- $$\n${f.replace(/^/gm, "  ")}\n  $$`),
  url.map((u) => `{% embed url="${u}" %}`),
  fc.tuple(url, line).map(([u, l]) => `{% embed url="${u}" %}\n${l}\n{% endembed %}`),
);
/** GitBook's containers, written with and without blank lines around their markers. */
const separator = fc.constantFrom("\n", "\n\n");
const tabs = fc
  .tuple(fc.array(fc.tuple(tabTitle, fc.array(simpleBlock, { maxLength: 3 })), { minLength: 1, maxLength: 3 }), separator)
  .map(([items, gap]) =>
    [
      "{% tabs %}",
      ...items.map(([name, blocks]) => [`{% tab title="${name.replace(/"/g, "&quot;")}" %}`, ...blocks, "{% endtab %}"].join(gap)),
      "{% endtabs %}",
    ].join("\n"),
  );
const hint = fc
  .tuple(fc.constantFrom("info", "success", "warning", "danger"), fc.array(simpleBlock, { maxLength: 3 }), separator)
  .map(([style, blocks, gap]) => [`{% hint style="${style}" %}`, ...blocks, "{% endhint %}"].join(gap));
const expandable = fc
  .tuple(title, fc.boolean(), fc.array(fc.oneof(simpleBlock, tabs, hint), { maxLength: 3 }))
  .map(([summary, open, blocks]) => [open ? "<details open>" : "<details>", `<summary>${summary}</summary>`, ...blocks, "</details>"].join("\n\n"));
/** A stray or unbalanced marker. */
const marker = fc.constantFrom(
  "{% tabs %}",
  "{% endtabs %}",
  '{% tab title="x" %}',
  "{% endtab %}",
  '{% hint style="info" %}',
  "{% endhint %}",
  "{% endembed %}",
  "<details>",
  "</details>",
  "$$",
);

/** Markdown of one to five blocks, GitBook's tabs, hints, expandables, embeds and math among them. */
export const markdownArbitrary = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: simpleBlock },
      { weight: 2, arbitrary: tabs },
      { weight: 2, arbitrary: hint },
      { weight: 2, arbitrary: expandable },
      { weight: 1, arbitrary: marker },
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((blocks) => blocks.join("\n\n"));
