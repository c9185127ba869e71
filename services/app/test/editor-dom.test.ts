// @vitest-environment happy-dom
import { type JsonDocument, markdownToDocument } from "@imprint/document";
import { h, render } from "preact";
import { useState } from "preact/hooks";
import { TextSelection } from "prosemirror-state";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEditor, DocumentEditor } from "../src/client/editor/index.js";

/** Lets Preact render and dynamic imports settle. */
const settle = async (rounds = 5) => {
  for (let round = 0; round < rounds; round++) await new Promise((resolve) => setTimeout(resolve, 0));
};

const MARKDOWN = [
  "Intro text",
  "",
  '{% hint style="warning" %}\nBack up first.\n{% endhint %}',
  "",
  "```ts\nconst a = 1;\n```",
  "",
  "| Name | Size |\n| --- | --- |\n| a | 1 |",
  "",
  '{% embed url="https://www.youtube.com/watch?v=x" %}',
].join("\n");

let host: HTMLElement;
afterEach(() => {
  render(null, host);
  host.remove();
});

function mount(props: { document: JsonDocument; onChange?: (document: JsonDocument) => void; readOnly?: boolean }) {
  host = document.createElement("div");
  document.body.append(host);
  render(h(DocumentEditor, props), host);
}

const button = (name: string) => {
  const found = host.querySelector<HTMLButtonElement>(`button[aria-label="${name}"]`);
  if (!found) throw new Error(`no button "${name}"`);
  return found;
};

describe("the editor in a page", () => {
  it("draws the document's blocks as the reader does, atoms as labelled boxes, with a named toolbar", async () => {
    mount({ document: markdownToDocument(MARKDOWN) });
    await settle();
    const content = host.querySelector('[role="textbox"]')!;
    expect(content.getAttribute("aria-label")).toBe("Page content");
    expect(content.getAttribute("contenteditable")).toBe("true");
    expect(content.querySelector(".hint.hint-warning")?.textContent).toBe("Back up first.");
    expect(content.querySelector('pre[data-syntax="ts"]')?.textContent).toBe("const a = 1;");
    expect([...content.querySelectorAll("th")].map((cell) => cell.textContent)).toEqual(["Name", "Size"]);
    expect(content.querySelector('[data-block="embed"]')?.textContent).toBe("Embedhttps://www.youtube.com/watch?v=x");
    const toolbar = host.querySelector('[role="toolbar"]')!;
    expect(toolbar.getAttribute("aria-label")).toBe("Formatting");
    for (const name of [
      "Heading 1",
      "Bold",
      "Italic",
      "Inline code",
      "Strikethrough",
      "Link",
      "Bulleted list",
      "Numbered list",
      "Task list",
      "Quote",
      "Code block",
    ]) {
      expect(button(name).getAttribute("aria-pressed"), name).toBe("false");
    }
    for (const name of ["Insert table", "Insert divider", "Insert image by URL", "Markdown source"]) expect(button(name).disabled, name).toBe(false);
    expect(button("Bold").getAttribute("aria-keyshortcuts")).toMatch(/^(Control|Meta)-b$/);
    expect(host.querySelector('select[aria-label="Hint"]')).not.toBeNull();
  });

  it("a toolbar button changes the block the selection is in, says so with aria-pressed, and reports the document", async () => {
    const changes: JsonDocument[] = [];
    mount({ document: markdownToDocument("Title\n\nbody"), onChange: (changed) => changes.push(changed) });
    await settle();
    button("Heading 2").click();
    await settle();
    expect(changes.at(-1)!.nodes[0]).toStrictEqual({
      object: "block",
      type: "heading-2",
      data: {},
      nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Title", marks: [] }] }],
    });
    expect(changes.at(-1)!.nodes[1]).toStrictEqual(markdownToDocument("body").nodes[0]);
    expect(button("Heading 2").getAttribute("aria-pressed")).toBe("true");
    expect(host.querySelector('[role="textbox"] h2')?.textContent).toBe("Title");
  });

  it("as a controlled component (its changes given back as the document), a change made before the last one is given back is kept", async () => {
    const changes: JsonDocument[] = [];
    function Controlled() {
      const [document, setDocument] = useState(markdownToDocument("Title\n\nbody"));
      return h(DocumentEditor, {
        document,
        onChange: (changed: JsonDocument) => {
          changes.push(changed);
          setDocument(changed);
        },
      });
    }
    host = document.createElement("div");
    document.body.append(host);
    render(h(Controlled, {}), host);
    await settle();
    button("Heading 2").click();
    // Preact renders the first change, then a second change comes before that render's effects run.
    await Promise.resolve();
    await Promise.resolve();
    button("Quote").click();
    await vi.waitFor(() => expect(host.querySelector('[role="textbox"] blockquote h2')?.textContent).toBe("Title"));
    expect(changes).toHaveLength(2);
  });

  it("the markdown source view shows the page's markdown and reads the edited text back", async () => {
    const changes: JsonDocument[] = [];
    mount({ document: markdownToDocument("# Guide\n\nHello"), onChange: (changed) => changes.push(changed) });
    await settle();
    button("Markdown source").click();
    // The source view's conversions are a chunk of their own, loaded now: wait for what it shows, not for a number of ticks.
    const source = await vi.waitFor(() => {
      const shown = host.querySelector<HTMLTextAreaElement>('textarea[aria-label="Markdown source"]');
      expect(shown?.value).toBe("# Guide\n\nHello\n");
      return shown!;
    });
    expect(button("Markdown source").getAttribute("aria-pressed")).toBe("true");
    expect(button("Bold").disabled).toBe(true);
    source.value = "# Guide\n\nHello **world**\n";
    source.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    button("Markdown source").click();
    await vi.waitFor(() => expect(host.querySelector("textarea")).toBeNull());
    expect(changes.at(-1)).toStrictEqual(markdownToDocument("# Guide\n\nHello **world**\n"));
    expect(host.querySelector('[role="textbox"] strong')?.textContent).toBe("world");
  });

  it("read-only: no toolbar, and the content cannot be edited", async () => {
    mount({ document: markdownToDocument("text"), readOnly: true });
    await settle();
    expect(host.querySelector('[role="toolbar"]')).toBeNull();
    expect(host.querySelector('[role="textbox"]')!.getAttribute("contenteditable")).toBe("false");
  });
});

describe("createEditor", () => {
  it("gives back the document it was given, reports edits, takes another document, and is destroyed", () => {
    host = document.createElement("div");
    document.body.append(host);
    const read = markdownToDocument(MARKDOWN);
    const changes: JsonDocument[] = [];
    const editor = createEditor(host, { document: read, onChange: (changed) => changes.push(changed) });
    expect(editor.getDocument()).toStrictEqual(read);
    const { view } = editor;
    view.dispatch(view.state.tr.setSelection(TextSelection.create(view.state.doc, 1 + "Intro text".length)).insertText("!"));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.nodes[0]).toStrictEqual(markdownToDocument("Intro text!").nodes[0]);
    expect(changes[0]!.nodes.slice(1)).toStrictEqual(read.nodes.slice(1));
    editor.setDocument(markdownToDocument("other"));
    expect(editor.getDocument()).toStrictEqual(markdownToDocument("other"));
    expect(host.querySelector("p")?.textContent).toBe("other");
    editor.destroy();
    expect(host.querySelector('[role="textbox"]')).toBeNull();
  });
});
