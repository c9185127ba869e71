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
  steppers: [
    "{% stepper %}",
    "{% step %}",
    "### Install",
    "",
    "Run the **installer**.",
    "{% endstep %}",
    "",
    "{% step %}",
    "### Configure",
    "",
    '{% hint style="info" %}\nin a step\n{% endhint %}',
    "",
    "```sh\nimprint start\n```",
    "{% endstep %}",
    "{% endstepper %}",
    "",
    "- {% stepper %}",
    "  {% step %}",
    "  a stepper in a list item is its steps' content",
    "  {% endstep %}",
    "  {% endstepper %}",
  ].join("\n"),
  cards: [
    '{% content-ref url="/pages/p1" %}',
    "[/pages/p1](/pages/p1)",
    "{% endcontent-ref %}",
    "",
    '{% content-ref url="https://example.com/guide" %}\n[Guide](https://example.com/guide)\n{% endcontent-ref %}',
    "",
    '{% content-ref url="#install" %}\n{% endcontent-ref %}',
    "",
    '> {% content-ref url="/pages/p2" %}\n> [p2](/pages/p2)\n> {% endcontent-ref %}',
  ].join("\n"),
  files: [
    '{% file src="/files/file1" %}',
    "The caption",
    "{% endfile %}",
    "",
    '{% file src="/files/file2" %}',
    "",
    '{% file src=".gitbook/assets/report.pdf" %}\n{% endfile %}',
    "",
    '{% tabs %}\n{% tab title="A" %}\n{% file src="/files/file3" %}\n{% endtab %}\n{% endtabs %}',
  ].join("\n"),
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
  conditional: [
    "{% if visitor.claims.unsigned.beta %}",
    "## Beta **only**",
    "",
    '{% hint style="info" %}\nnested in a condition\n{% endhint %}',
    "{% if visitor.claims.plan === \"pro\" && space.vars.edition != 'lite' %}",
    "- nested condition",
    "{% endif %}",
    "{% endif %}",
    "",
    "{% if !visitor.claims.unsigned.beta %}",
    "{% endif %}",
    "",
    "- {% if visitor.claims.a %}",
    "  in a list item: its content",
    "  {% endif %}",
  ].join("\n"),
  columns: [
    "{% columns %}",
    '{% column width="66.66666666666666%" %}',
    '{% hint style="info" %}\nin a column\n{% endhint %}',
    "{% endcolumn %}",
    "",
    "{% column %}",
    '{% content-ref url="/pages/p1" %}\n[p1](/pages/p1)\n{% endcontent-ref %}',
    "",
    "| a |\n|---|\n| b |",
    "{% endcolumn %}",
    "{% endcolumns %}",
    "",
    '{% columns %}\n{% column width="320px" %}\n{% tabs %}\n{% tab title="T" %}\ntabs in a column are their titles and content\n{% endtab %}\n{% endtabs %}\n{% endcolumn %}\n{% endcolumns %}',
    "",
    "- {% columns %}\n  {% column %}\n  columns in a list item are their content\n  {% endcolumn %}\n  {% endcolumns %}",
  ].join("\n"),
  updates: [
    '{% updates format="full" %}',
    '{% update date="2025-12-25" tags="beta,api" %}',
    "## A brand new update",
    "",
    "Its **details**.",
    "",
    '{% tabs %}\n{% tab title="A" %}\ntabs in an update\n{% endtab %}\n{% endtabs %}',
    "{% endupdate %}",
    "",
    '{% update date="2025-12-24T10:30:00Z" %}',
    "- a list",
    "{% endupdate %}",
    "{% endupdates %}",
    "",
    '{% updates format="numeric" %}\n{% update date="2024-02-29" %}\n{% endupdate %}\n{% endupdates %}',
    "",
    '> {% updates %}\n> {% update date="2025-01-01" %}\n> an update in a quote is its day and its content\n> {% endupdate %}\n> {% endupdates %}',
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
  "inline math":
    "Energy $$E = mc^2$$ in a sentence, **bold $$x_1$$**, a [link $$y$$](https://example.com), a price of $5 and \\$$ escaped.\n\n> quoted $$\\alpha$$\n\n- item $$a \\pm b$$\n\ntext $$$a$$b$$$ end\n\n$$$x$$$\n\n# Heading $$n^2$$",
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
  url.map((u) => `{% content-ref url="${u}" %}\n[${u}](${u})\n{% endcontent-ref %}`),
  fc.constantFrom("/files/file1", "/files/f_2", ".gitbook/assets/a.pdf").map((src) => `{% file src="${src}" %}\n{% endfile %}`),
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
const stepper = fc
  .tuple(fc.array(fc.array(simpleBlock, { maxLength: 3 }), { minLength: 1, maxLength: 3 }), separator)
  .map(([steps, gap]) => ["{% stepper %}", ...steps.map((blocks) => ["{% step %}", ...blocks, "{% endstep %}"].join(gap)), "{% endstepper %}"].join("\n"));
const hint = fc
  .tuple(fc.constantFrom("info", "success", "warning", "danger"), fc.array(simpleBlock, { maxLength: 3 }), separator)
  .map(([style, blocks, gap]) => [`{% hint style="${style}" %}`, ...blocks, "{% endhint %}"].join(gap));
const expandable = fc
  .tuple(title, fc.boolean(), fc.array(fc.oneof(simpleBlock, tabs, stepper, hint), { maxLength: 3 }))
  .map(([summary, open, blocks]) => [open ? "<details open>" : "<details>", `<summary>${summary}</summary>`, ...blocks, "</details>"].join("\n\n"));
const conditional = fc
  .tuple(
    fc.constantFrom("visitor.claims.unsigned.beta", '!visitor.claims.plan.includes("pro")'),
    fc.array(fc.oneof(simpleBlock, hint, tabs), { maxLength: 3 }),
    separator,
  )
  .map(([expression, blocks, gap]) => [`{% if ${expression} %}`, ...blocks, "{% endif %}"].join(gap));
const columns = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom("", ' width="50%"', ' width="33.5%"'), fc.array(fc.oneof(simpleBlock, hint), { maxLength: 3 })), {
      minLength: 1,
      maxLength: 3,
    }),
    separator,
  )
  .map(([items, gap]) =>
    ["{% columns %}", ...items.map(([width, blocks]) => [`{% column${width} %}`, ...blocks, "{% endcolumn %}"].join(gap)), "{% endcolumns %}"].join("\n"),
  );
const updates = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom("2025-12-25", "2024-02-29", "2026-01-01T08:00:00Z"), fc.array(fc.oneof(simpleBlock, tabs), { maxLength: 3 })), {
      minLength: 1,
      maxLength: 3,
    }),
    separator,
  )
  .map(([items, gap]) =>
    [
      '{% updates format="short" %}',
      ...items.map(([date, blocks]) => [`{% update date="${date}" tags="beta" %}`, ...blocks, "{% endupdate %}"].join(gap)),
      "{% endupdates %}",
    ].join("\n"),
  );
/** A stray or unbalanced marker. */
const marker = fc.constantFrom(
  "{% tabs %}",
  "{% endtabs %}",
  '{% tab title="x" %}',
  "{% endtab %}",
  '{% hint style="info" %}',
  "{% endhint %}",
  "{% stepper %}",
  "{% step %}",
  "{% endstep %}",
  '{% content-ref url="/pages/p1" %}',
  "{% endcontent-ref %}",
  "{% endfile %}",
  "{% endembed %}",
  "{% if visitor.claims.a %}",
  "{% endif %}",
  "{% columns %}",
  "{% column %}",
  "{% endcolumn %}",
  '{% update date="2025-01-01" %}',
  "{% endupdates %}",
  "<details>",
  "</details>",
  "$$",
);

/** Markdown of one to five blocks, GitBook's tabs, steppers, hints, expandables, cards, files, embeds and math among them. */
export const markdownArbitrary = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: simpleBlock },
      { weight: 2, arbitrary: tabs },
      { weight: 2, arbitrary: hint },
      { weight: 2, arbitrary: stepper },
      { weight: 2, arbitrary: expandable },
      { weight: 1, arbitrary: conditional },
      { weight: 1, arbitrary: columns },
      { weight: 1, arbitrary: updates },
      { weight: 1, arbitrary: marker },
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((blocks) => blocks.join("\n\n"));
