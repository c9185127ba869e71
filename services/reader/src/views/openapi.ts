import { createHash } from "node:crypto";
import type { ContentRef, DocumentBlock, JsonDocument } from "@imprint/document";
import type { Element, ElementContent } from "hast";
import { h } from "hastscript";
import { codeSamples, openApiOperation, type BodyView, type OperationView, type ResponseView, type SchemaView } from "./openapi-operation.js";
import type { OpenApiWords } from "./words.js";

/**
 * GitBook's OpenAPI operation blocks as an API reference: the operation's method and path, its
 * summary and description, parameters, request body and responses (schemas and examples), code
 * samples (curl, JavaScript, Python) and a "Test it" form. Everything reads without script; the
 * form is shown and sent by the reader's own small OpenAPI script (`openApiAssets.script`, loaded
 * only by pages holding an operation), which calls the API from the visitor's browser with fetch
 * and shows the status and body (GitBook uses Scalar for this; a small panel of our own is enough).
 * The spec comes from the organization's stored specifications (by slug, or by source URL); an
 * operation whose spec or operation cannot be found renders a note with its method and path.
 * Every word shown (the script's too, handed to it in the form's data attributes) is the space's
 * language's, from the reader's words (words.ts).
 */

export interface OpenApiBlockSources {
  /** The parsed document of the stored spec `key` names (a slug or a source URL), null when there is none. */
  specOf: (key: string) => unknown;
  /** Where a reference leads (a file of the space), as the document's links. */
  resolveRef: (ref: ContentRef) => string | null;
  /** The words of the page's language. */
  words: OpenApiWords;
}

type OpenApiBlockData = { method?: unknown; path?: unknown; ref?: { kind?: unknown; spec?: unknown; url?: unknown; file?: unknown } };

/** The key of a spec that is a file of the space (a Git Sync repository's own spec file), before the file's id. */
export const OPENAPI_FILE_KEY = "file:";

/** The spec a block names: an `openapi-operation`'s slug, a `swagger` block's URL or file of the space. */
export function openApiSpecKey(block: DocumentBlock): string | undefined {
  const ref = (block.data as OpenApiBlockData).ref;
  if (block.type === "openapi-operation" && typeof ref?.spec === "string") return ref.spec;
  if (block.type === "swagger" && ref?.kind === "url" && typeof ref.url === "string") return ref.url;
  if (block.type === "swagger" && ref?.kind === "file" && typeof ref.file === "string") return `${OPENAPI_FILE_KEY}${ref.file}`;
  return undefined;
}

/** The document's top-level OpenAPI blocks (GitBook allows them nowhere else). */
export function openApiBlocks(document: JsonDocument): DocumentBlock[] {
  return (Array.isArray(document.nodes) ? document.nodes : []).filter(
    (block): block is DocumentBlock => block?.object === "block" && (block.type === "swagger" || block.type === "openapi-operation"),
  );
}

/** The operation a block names, read from its spec; null when the block, its spec or the operation is missing. */
export function operationOfBlock(block: DocumentBlock, specOf: OpenApiBlockSources["specOf"]): OperationView | null {
  const data = block.data as OpenApiBlockData;
  const key = openApiSpecKey(block);
  if (key === undefined || typeof data.path !== "string" || typeof data.method !== "string") return null;
  const document = specOf(key);
  return document ? openApiOperation(document, data.path, data.method) : null;
}

/** The origin the "Test it" form calls, for the page's connect-src (null when it is the page's own or none). */
export function operationOrigin(operation: OperationView): string | null {
  try {
    const url = new URL(operation.serverUrl);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
  } catch {
    return null;
  }
}

// ── HTML ────────────────────────────────────────────────────────────────────────────────────

/** The block as an API reference (or, when its operation cannot be found, a note naming it). */
export function openApiBlockHtml(block: DocumentBlock, sources: OpenApiBlockSources): Element {
  const data = block.data as OpenApiBlockData;
  const method = typeof data.method === "string" ? data.method.toUpperCase() : "";
  const path = typeof data.path === "string" ? data.path : "";
  const operation = operationOfBlock(block, sources.specOf);
  const { words } = sources;
  if (!operation) {
    const ref = data.ref as ContentRef | undefined;
    const href = block.type === "swagger" && ref ? (ref.kind === "url" ? safeHttpUrl(ref.url) : sources.resolveRef(ref)) : null;
    return h("div.openapi-missing", { role: "note" }, [
      h("p", [h("code", `${method} ${path}`), `${words.colon}${words.missing}`]),
      ...(href ? [h("p", [h("a", { href, rel: "noopener" }, words.specification)])] : []),
    ]);
  }
  const label = `${operation.method.toUpperCase()} ${operation.path}`;
  const parameters = operation.parameters;
  return h("section.openapi-operation", { "aria-label": label }, [
    h("h2.openapi-title", [h(`span.method.method-${operation.method}`, operation.method.toUpperCase()), " ", h("code", operation.path)]),
    ...(operation.deprecated ? [h("p.deprecated", h("strong", words.deprecated))] : []),
    ...(operation.summary ? [h("p.summary", operation.summary)] : []),
    ...paragraphs(operation.description),
    ...(operation.serverUrl ? [h("p.server", [`${words.server}${words.colon}`, h("code", operation.serverUrl)])] : []),
    ...(parameters.length > 0
      ? [
          h("h3", words.parameters),
          h("div.table", [
            h("table.parameters", [
              h(
                "thead",
                h(
                  "tr",
                  [words.name, words.location, words.type, words.required, words.description].map((title) => h("th", { scope: "col" }, title)),
                ),
              ),
              h(
                "tbody",
                parameters.map((parameter) =>
                  h("tr", [
                    h("th", { scope: "row" }, h("code", parameter.name)),
                    h("td", locationOf(parameter.in, words)),
                    h("td", schemaType(parameter.schema, words)),
                    h("td", parameter.required ? words.required : words.optional),
                    h("td", [
                      parameter.description ?? "",
                      ...(parameter.example && parameter.exampleDocumented
                        ? [`${parameter.description ? " " : ""}${words.example}${words.colon}`, h("code", parameter.example)]
                        : []),
                    ]),
                  ]),
                ),
              ),
            ]),
          ]),
        ]
      : []),
    ...(operation.requestBody ? [h("h3", words.requestBody), ...bodyHtml(operation.requestBody, words)] : []),
    ...responsesHtml(operation.responses, words),
    h("h3", words.codeSamples),
    ...codeSamples(operation).map((sample) => h("figure.code", [h("figcaption", sample.title), h("pre", h(`code.language-${sample.syntax}`, sample.code))])),
    tryItForm(operation, label, words),
  ]);
}

function safeHttpUrl(url: unknown): string | null {
  return typeof url === "string" && /^https?:\/\//i.test(url.trim()) ? url.trim() : null;
}

/** An operation's (or a webhook's expected) responses: each status with its description and body; nothing when there are none. */
export function responsesHtml(responses: readonly ResponseView[], words: OpenApiWords): Element[] {
  if (responses.length === 0) return [];
  return [
    h("h3", words.responses),
    ...responses.map((response) =>
      h("section.response", { "aria-label": `${words.response} ${response.status}` }, [
        h("h4", [h("code", response.status), ...(response.description ? [" ", response.description] : [])]),
        ...(response.body ? bodyHtml(response.body, words) : []),
      ]),
    ),
  ];
}

/** OpenAPI descriptions are CommonMark: shown as their paragraphs' text (nothing in them is markup here). */
export function paragraphs(text: string | undefined): Element[] {
  return (text ?? "")
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "")
    .map((paragraph) => h("p", paragraph));
}

/** Where a parameter goes, in the page's language (an unknown place as the spec names it). */
function locationOf(location: string, words: OpenApiWords): string {
  return Object.hasOwn(words.locations, location) ? words.locations[location as keyof OpenApiWords["locations"]] : location;
}

function schemaType(schema: SchemaView, words: OpenApiWords): ElementContent[] {
  return [h("code", schema.type), ...(schema.enum ? [{ type: "text" as const, value: ` (${words.oneOf(schema.enum.join(", "))})` }] : [])];
}

export function schemaHtml(schema: SchemaView, words: OpenApiWords): Element {
  return h(
    "ul.schema",
    (schema.properties ?? []).map((property) =>
      h("li", [
        h("code", property.name),
        " ",
        h("span.type", schemaType(property.schema, words)),
        ...(property.required ? [" ", h("span.required", words.requiredMark)] : []),
        ...(property.schema.description ? [h("br"), property.schema.description] : []),
        ...(property.schema.properties ? [schemaHtml(property.schema, words)] : []),
      ]),
    ),
  );
}

export function bodyHtml(body: BodyView, words: OpenApiWords): ElementContent[] {
  return [
    ...(body.contentType ? [h("p", [`${words.contentType}${words.colon}`, h("code", body.contentType)])] : []),
    ...paragraphs(body.description),
    ...(body.schema
      ? [h("p", [`${words.schema}${words.colon}`, h("code", body.schema.type)]), ...(body.schema.properties ? [schemaHtml(body.schema, words)] : [])]
      : []),
    ...(body.example !== undefined
      ? [h("figure.code", [h("figcaption", words.example), h("pre", h(`code.language-${/json/i.test(body.contentType) ? "json" : "text"}`, body.example))])]
      : []),
  ];
}

/**
 * The "Test it" form: hidden until the OpenAPI script shows it (without script it could not send
 * anything); the words the script shows are the form's `data-sending` and `data-failed`.
 */
function tryItForm(operation: OperationView, label: string, words: OpenApiWords): Element {
  const fieldId = (name: string) => `try-${createHash("sha256").update(`${label}\u0000${name}`).digest("hex").slice(0, 10)}`;
  const fields = operation.parameters
    .filter((parameter) => parameter.in !== "cookie")
    .map((parameter) => {
      const id = fieldId(`${parameter.in}:${parameter.name}`);
      return h("p", [
        h("label", { for: id }, [h("code", parameter.name), ` (${locationOf(parameter.in, words)}${parameter.required ? `, ${words.requiredMark}` : ""})`]),
        h("input", { id, name: parameter.name, "data-in": parameter.in, value: parameter.example ?? "", required: parameter.required }),
      ]);
    });
  const body = operation.requestBody;
  const bodyId = fieldId("body");
  return h(
    "form.openapi-try",
    {
      hidden: true,
      "aria-label": words.test(label),
      "data-method": operation.method.toUpperCase(),
      "data-url": `${operation.serverUrl}${operation.path}`,
      "data-sending": words.sending,
      "data-failed": words.requestFailed,
    },
    [
      h("h3", words.testIt),
      ...fields,
      ...(body
        ? [
            h("p", [
              h("label", { for: bodyId }, [words.body, body.contentType ? ` (${body.contentType})` : ""]),
              h("textarea", { id: bodyId, name: "body", "data-in": "body", "data-type": body.contentType, rows: 8 }, body.example ?? ""),
            ]),
          ]
        : []),
      h("p", h("button", { type: "submit" }, words.send)),
      h("output.openapi-result", { "aria-live": "polite" }),
    ],
  );
}

// ── markdown (the page's `.md` and llms-full.txt) ───────────────────────────────────────────

/** The operation as readable markdown (in `words`' language): method and path, description, parameters, request example, responses. */
export function openApiOperationMarkdown(operation: OperationView, words: OpenApiWords): string {
  const escapeCell = (value: string) => value.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
  const lines = [`### \`${operation.method.toUpperCase()} ${operation.path}\``, ""];
  if (operation.summary) lines.push(operation.summary, "");
  if (operation.description) lines.push(operation.description, "");
  if (operation.serverUrl) lines.push(`${words.server}${words.colon}\`${operation.serverUrl}\``, "");
  if (operation.parameters.length > 0) {
    lines.push(`| ${[words.parameter, words.location, words.type, words.required, words.description].join(" | ")} |`, "| --- | --- | --- | --- | --- |");
    for (const parameter of operation.parameters) {
      lines.push(
        `| \`${escapeCell(parameter.name)}\` | ${escapeCell(locationOf(parameter.in, words))} | ${escapeCell(parameter.schema.type)} | ${parameter.required ? words.yes : words.no} | ${escapeCell(parameter.description ?? "")} |`,
      );
    }
    lines.push("");
  }
  if (operation.requestBody?.example !== undefined)
    lines.push(`${words.requestBody} (\`${operation.requestBody.contentType}\`)${words.colon.trimEnd()}`, "", fence(operation.requestBody.example, "json"), "");
  for (const response of operation.responses) {
    lines.push(`${words.response} \`${response.status}\`${response.description ? `${words.colon}${response.description}` : ""}`, "");
    if (response.body?.example !== undefined) lines.push(fence(response.body.example, "json"), "");
  }
  const [curl] = codeSamples(operation);
  if (curl) lines.push(fence(curl.code, "bash"), "");
  return lines.join("\n").trimEnd();
}

function fence(code: string, syntax: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((match) => match[0].length));
  const marks = "`".repeat(longest + 1);
  return `${marks}${syntax}\n${code}\n${marks}`;
}

/**
 * A page's markdown with each OpenAPI tag (`{% openapi %}`, `{% swagger %}`, `{% openapi-operation %}`
 * … its end tag) replaced by its operation as readable markdown; a tag whose operation cannot be
 * found stays as written.
 */
export function withOpenApiOperations(
  markdown: string,
  operationOf: (tag: string, attributes: Map<string, string>) => OperationView | null,
  words: OpenApiWords,
): string {
  return markdown.replace(
    /^[ \t]*\{%\s*(openapi-operation|openapi|swagger)((?:\s+[A-Za-z]+\s*=\s*"[^"]*")*)\s*%\}[ \t]*\n[\s\S]*?^[ \t]*\{%\s*end\1\s*%\}[ \t]*$/gm,
    (whole, tag: string, attributeText: string) => {
      const attributes = new Map(
        [...attributeText.matchAll(/([A-Za-z]+)\s*=\s*"([^"]*)"/g)].map((match) => [match[1]!, match[2]!.replace(/&quot;/g, '"').replace(/&amp;/g, "&")]),
      );
      const operation = operationOf(tag, attributes);
      return operation ? openApiOperationMarkdown(operation, words) : whole;
    },
  );
}

// ── assets ──────────────────────────────────────────────────────────────────────────────────

/** The API reference's look, part of the reader's one stylesheet. */
export const OPENAPI_STYLE = `
section.openapi-operation{border:1px solid var(--line);border-radius:.5rem;padding:0 1rem 1rem;margin:1.5rem 0}.openapi-title{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.method{font-size:.8rem;font-weight:700;border-radius:.35rem;padding:.1rem .45rem;background:var(--soft);border:1px solid var(--line)}.method-get{color:#116329}.method-post{color:#0550ae}.method-put,.method-patch{color:#8a4600}.method-delete{color:#b3125b}
:root[data-theme=dark] .method-get{color:#7ee787}:root[data-theme=dark] .method-post{color:#79c0ff}:root[data-theme=dark] :is(.method-put,.method-patch){color:#f0b46a}:root[data-theme=dark] :is(.method-delete,ul.schema .required){color:#ff7b9c}
ul.schema{font-size:.92rem}ul.schema .type{color:var(--muted)}ul.schema .required{color:#b3125b;font-size:.8rem}.openapi-missing{border:1px dashed var(--line);border-radius:.5rem;padding:.5rem 1rem}
form.openapi-try{border-top:1px solid var(--line);margin-top:1rem}form.openapi-try label{display:block;font-size:.9rem}form.openapi-try input,form.openapi-try textarea{width:100%;padding:.35rem .5rem;border:1px solid var(--line);border-radius:.4rem;background:var(--soft);color:var(--fg);font-family:ui-monospace,monospace}
form.openapi-try button{border:1px solid var(--accent);background:var(--accent);color:var(--bg);border-radius:.5rem;padding:.4rem .9rem;cursor:pointer}
`;

/** Shows each "Test it" form and sends it: path parameters into the URL, query ones after it, headers, the body; then the status and body (its words: the form's). */
const SCRIPT = `(()=>{for(const form of document.querySelectorAll("form.openapi-try")){form.hidden=false;const out=form.querySelector("output");
form.addEventListener("submit",async e=>{e.preventDefault();let url=form.dataset.url;const query=new URLSearchParams(),headers={};let body;
for(const field of form.querySelectorAll("[data-in]")){const v=field.value,where=field.dataset.in;if(where==="path")url=url.split("{"+field.name+"}").join(encodeURIComponent(v));else if(where==="query"){if(v!=="")query.append(field.name,v)}else if(where==="header"){if(v!=="")headers[field.name]=v}else if(where==="body"&&v.trim()!==""){body=v;if(field.dataset.type)headers["Content-Type"]=field.dataset.type}}
const q=query.toString();out.replaceChildren(form.dataset.sending);
try{const r=await fetch(url+(q?(url.includes("?")?"&":"?")+q:""),{method:form.dataset.method,headers,body:["GET","HEAD"].includes(form.dataset.method)?undefined:body});let text=await r.text();try{text=JSON.stringify(JSON.parse(text),null,2)}catch{}
const status=document.createElement("p"),pre=document.createElement("pre");status.textContent=r.status+" "+r.statusText;pre.textContent=text;out.replaceChildren(status,pre)}
catch(error){out.replaceChildren(form.dataset.failed.split("{error}").join(error.message))}})}})();`;

/** The OpenAPI script, at a path that changes with its content, served by the reader itself. */
export const openApiAssets = {
  script: {
    path: `/_assets/openapi.${createHash("sha256").update(SCRIPT).digest("base64url").slice(0, 12)}.js`,
    contentType: "text/javascript; charset=utf-8",
    body: SCRIPT,
  },
};
