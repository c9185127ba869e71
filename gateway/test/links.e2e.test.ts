import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { PageType } from "@imprint/proto/content/v1/revisions";
import { commitDraftWork, commitEdits, startEditingStack, stopEditingStack, type DraftCaller, type EditingClient } from "./support/editing.js";
import { pngBytes } from "@imprint/runtime/testing";
import { createMember, createOrganization, createOrganizationWithSpace, type TestOrganization } from "./support/factories.js";
import { call, type CallResult } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * Links and backlinks end to end: content written through the content service's editing API,
 * read through the gateway. GitBook dropped these operations after 0.181.0, so the pinned
 * 0.202.0 document has none of them: success bodies are validated here against 0.181.0's
 * published document (dev dependency `gitbook-api-0.181.0`, an npm alias of @gitbook/api@0.181.0),
 * and error bodies against the shared error shape by the usual contract check.
 */
const NOT_IN_OPENAPI = "link listings exist up to @gitbook/api 0.181.0 only; validated against that version's schemas below";

const require = createRequire(import.meta.url);
const addFormats = require("ajv-formats") as (ajv: Ajv2020) => Ajv2020;
const spec181 = JSON.parse(readFileSync(require.resolve("gitbook-api-0.181.0/spec/openapi.json"), "utf8")) as {
  paths: Record<string, { get: { operationId: string } }>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
for (const format of ["emoji", "icon", "int32", "byte"]) ajv.addFormat(format, true);
ajv.addSchema(spec181, "openapi-0.181.0");

const validators = new Map<string, ValidateFunction>();
/** Fails the test unless `body` matches the 0.181.0 response schema of the operation at `template`. */
function expectValid181(template: string, body: unknown): void {
  let validate = validators.get(template);
  if (!validate) {
    const pointer = `#/paths/${template.replace(/~/g, "~0").replace(/\//g, "~1")}/get/responses/200/content/application~1json/schema`;
    validate = ajv.compile({ $ref: `openapi-0.181.0${pointer}` });
    validators.set(template, validate);
  }
  if (!validate(body)) throw new Error(`${spec181.paths[template]!.get.operationId} (0.181.0): ${ajv.errorsText(validate.errors, { separator: "\n  " })}`);
}

let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  ({ stack, editing } = await startEditingStack());
});
afterAll(() => stopEditingStack(stack, editing));
beforeEach(async () => {
  ({ org, spaceId } = await createOrganizationWithSpace(stack));
});

const PNG = pngBytes(16, 16);

/** Writes content through the editing API as the owner and makes it the current revision. */
const seed = (work: (draftId: string, caller: DraftCaller) => Promise<unknown>): Promise<string> =>
  commitDraftWork(editing, { userId: org.owner.userId, spaceId }, work);

const createPage = (caller: DraftCaller, draftId: string, fields: Partial<CreatePageInput>) =>
  editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial(fields) });

const TEMPLATES = {
  spaceLinks: "/spaces/{spaceId}/links",
  pageLinks: "/spaces/{spaceId}/content/page/{pageId}/links",
  pageBacklinks: "/spaces/{spaceId}/content/page/{pageId}/backlinks",
  fileBacklinks: "/spaces/{spaceId}/content/files/{fileId}/backlinks",
  changeRequestLinks: "/spaces/{spaceId}/change-requests/{changeRequestId}/links",
  changeRequestPageLinks: "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links",
  changeRequestPageBacklinks: "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/backlinks",
} as const;

/** GET through the gateway as `token` (default: the owner); a 200 body must match 0.181.0. */
async function get(template: keyof typeof TEMPLATES, path: string, token = org.owner.token): Promise<CallResult> {
  const response = await call(stack, "GET", path, { token, notInOpenApi: NOT_IN_OPENAPI });
  if (response.status === 200) expectValid181(TEMPLATES[template], response.body);
  return response;
}

/** The parts of a ContentLocation the assertions read (the whole shape is checked by the schema). */
interface Location {
  kind: string;
  url?: string;
  file?: { name: string };
  page?: { id: string };
  internalLocation?: { anchor: string };
}
interface LinkItem {
  status: string;
  relation: string;
  targetReference?: Location;
  locationReferences: Location[];
}

function targetName(target: Location | undefined): string {
  if (!target) return "(missing)";
  if (target.kind === "url") return target.url!;
  if (target.kind === "file") return `file:${target.file!.name}`;
  return `page:${target.page!.id}${target.internalLocation ? `#${target.internalLocation.anchor}` : ""}`;
}

/** "<status> <relation> <target> <- <location page ids>" for each item. */
const summary = (body: { items: LinkItem[] }): string[] =>
  body.items.map(
    (item) =>
      `${item.status} ${item.relation} ${targetName(item.targetReference)} <- ${item.locationReferences.map((location) => location.page!.id).join(",")}`,
  );
const pageIds = (body: { items: Location[] }): string[] => body.items.map((item) => item.page!.id);

describe("links and backlinks", () => {
  it("lists a space's links with status, targets, locations and stats; filters by status; pages", async () => {
    let fileId = "";
    await seed(async (draftId, caller) => {
      fileId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "chart.png", contentType: "image/png", content: PNG })).file!.id;
      await createPage(caller, draftId, { pageId: "guide", title: "Guide", markdown: "# Guide\n\n## Setup\n\nSteps." });
      await createPage(caller, draftId, {
        pageId: "home",
        title: "Home",
        markdown: `[Guide](/pages/guide), [setup](/pages/guide#setup), [old](/pages/removed), ![Chart](/files/${fileId}), [site](https://example.com), [settings](${stack.baseUrl}/o/x/settings)`,
      });
      await createPage(caller, draftId, { pageId: "status", title: "Status", type: PageType.PAGE_TYPE_LINK, href: "https://status.example.com" });
    });

    const all = await get("spaceLinks", `/v1/spaces/${spaceId}/links`);
    expect(all.status).toBe(200);
    // Ordered by target: files, pages (by id, anchors after the page), URLs.
    expect(summary(all.body)).toEqual([
      "ok dependsOn file:chart.png <- home",
      "ok reference page:guide <- home",
      "ok reference page:guide#setup <- home",
      "broken reference (missing) <- home",
      `in-app reference ${stack.baseUrl}/o/x/settings <- home`,
      "ok reference https://example.com <- home",
      "ok reference https://status.example.com <- status",
    ]);
    expect(all.body.count).toBe(7);
    expect(all.body.next).toBeUndefined();
    expect(all.body.stats).toEqual({ total: 7, broken: { total: 1, changeRequest: 0 } });

    // Locations are full page references: organization, space and the page with its body.
    const location = all.body.items[0].locationReferences[0];
    expect(location).toMatchObject({ kind: "page", organization: { object: "organization", id: org.organizationId }, space: { object: "space", id: spaceId } });
    expect(location.page).toMatchObject({ id: "home", title: "Home", path: "home", pages: [] });
    expect(location.page.markdown).toContain("[Guide](/pages/guide)");
    expect(all.body.items[0].targetReference.file.downloadURL).toContain(`/v1/files/${fileId}/download?`);

    const broken = await get("spaceLinks", `/v1/spaces/${spaceId}/links?status=broken`);
    expect(summary(broken.body)).toEqual(["broken reference (missing) <- home"]);
    expect(broken.body.count).toBe(1);
    expect(broken.body.stats).toEqual({ total: 7, broken: { total: 1, changeRequest: 0 } });
    expect(summary((await get("spaceLinks", `/v1/spaces/${spaceId}/links?status=in-app`)).body)).toEqual([
      `in-app reference ${stack.baseUrl}/o/x/settings <- home`,
    ]);

    const first = await get("spaceLinks", `/v1/spaces/${spaceId}/links?limit=4`);
    expect(first.body.items).toHaveLength(4);
    expect(first.body.count).toBe(7);
    const second = await get("spaceLinks", `/v1/spaces/${spaceId}/links?limit=4&page=${encodeURIComponent(first.body.next.page)}`);
    expect(second.body.items).toHaveLength(3);
    expect(second.body.next).toBeUndefined();
    expect([...summary(first.body), ...summary(second.body)]).toEqual(summary(all.body));

    expect((await get("spaceLinks", `/v1/spaces/${spaceId}/links?status=dead`)).status).toBe(400);
    expect((await get("spaceLinks", `/v1/spaces/${spaceId}/links?limit=5000`)).status).toBe(400);
    const badToken = await get("spaceLinks", `/v1/spaces/${spaceId}/links?page=nope`);
    expect(badToken.status).toBe(400);
    expect(badToken.body.error.message).toBe("page: not a valid page token for this list");
  });

  it("shows a link breaking when its target page is deleted and healing when the page comes back", async () => {
    await seed(async (draftId, caller) => {
      await createPage(caller, draftId, { pageId: "target", title: "Target", markdown: "Here." });
      await createPage(caller, draftId, { pageId: "source", title: "Source", markdown: "[to target](/pages/target)" });
    });
    expect(summary((await get("spaceLinks", `/v1/spaces/${spaceId}/links`)).body)).toEqual(["ok reference page:target <- source"]);
    const backlinks = await get("pageBacklinks", `/v1/spaces/${spaceId}/content/page/target/backlinks`);
    expect(pageIds(backlinks.body)).toEqual(["source"]);
    expect(backlinks.body.count).toBe(1);

    await seed((draftId, caller) => editing.deletePage({ caller, draftId, pageId: "target" }));
    const broken = await get("spaceLinks", `/v1/spaces/${spaceId}/links`);
    expect(summary(broken.body)).toEqual(["broken reference (missing) <- source"]);
    expect(broken.body.stats.broken.total).toBe(1);
    expect((await get("pageBacklinks", `/v1/spaces/${spaceId}/content/page/target/backlinks`)).status).toBe(404);

    await seed((draftId, caller) => createPage(caller, draftId, { pageId: "target", title: "Target", markdown: "Back again." }));
    const healed = await get("spaceLinks", `/v1/spaces/${spaceId}/links`);
    expect(summary(healed.body)).toEqual(["ok reference page:target <- source"]);
    expect(healed.body.stats.broken.total).toBe(0);
  });

  it("lists one page's links and a file's backlinks", async () => {
    let fileId = "";
    await seed(async (draftId, caller) => {
      fileId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "logo.png", contentType: "image/png", content: PNG })).file!.id;
      await createPage(caller, draftId, { pageId: "one", title: "One", markdown: `![logo](/files/${fileId}) [two](/pages/two) [gone](/pages/gone)` });
      await createPage(caller, draftId, { pageId: "two", title: "Two", markdown: `[download the logo](/files/${fileId})` });
      await createPage(caller, draftId, { pageId: "three", title: "Three", markdown: "No links." });
    });
    const one = await get("pageLinks", `/v1/spaces/${spaceId}/content/page/one/links`);
    expect(one.status).toBe(200);
    expect(one.body.count).toBe(3);
    expect(one.body.stats).toEqual({ total: 3, broken: { total: 1, changeRequest: 0 } });
    expect(summary((await get("pageLinks", `/v1/spaces/${spaceId}/content/page/one/links?status=ok`)).body)).toEqual([
      "ok dependsOn file:logo.png <- one",
      "ok reference page:two <- one",
    ]);
    expect((await get("pageLinks", `/v1/spaces/${spaceId}/content/page/three/links`)).body).toMatchObject({ items: [], count: 0, stats: { total: 0 } });
    expect((await get("pageLinks", `/v1/spaces/${spaceId}/content/page/nope/links`)).status).toBe(404);

    const files = await get("fileBacklinks", `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks`);
    expect(files.status).toBe(200);
    expect((files.body as { items: Location[] }).items.map((item) => item.kind)).toEqual(["page", "page"]);
    expect(pageIds(files.body)).toEqual(["one", "two"]);
    const paged = await get("fileBacklinks", `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks?limit=1`);
    expect(paged.body.items).toHaveLength(1);
    expect(paged.body.count).toBe(2);
    const rest = await get("fileBacklinks", `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks?limit=1&page=${encodeURIComponent(paged.body.next.page)}`);
    expect(rest.body.items[0].page.id).toBe("two");
    expect(rest.body.next).toBeUndefined();
    expect((await get("fileBacklinks", `/v1/spaces/${spaceId}/content/files/unknown/backlinks`)).status).toBe(404);
  });

  it("answers 404 to another organization on every link operation and 200 to a reader", async () => {
    let fileId = "";
    await seed(async (draftId, caller) => {
      fileId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "a.png", contentType: "image/png", content: PNG })).file!.id;
      await createPage(caller, draftId, { pageId: "p", title: "P", markdown: `[self](/pages/p) ![a](/files/${fileId})` });
    });
    const other = await createOrganization(stack);
    const paths = [
      ["spaceLinks", `/v1/spaces/${spaceId}/links`],
      ["pageLinks", `/v1/spaces/${spaceId}/content/page/p/links`],
      ["pageBacklinks", `/v1/spaces/${spaceId}/content/page/p/backlinks`],
      ["fileBacklinks", `/v1/spaces/${spaceId}/content/files/${fileId}/backlinks`],
    ] as const;
    const reader = await createMember(stack, org, { role: "read" });
    for (const [template, path] of paths) {
      const denied = await get(template, path, other.owner.token);
      expect(denied.status, path).toBe(404);
      expect((await get(template, path, reader.token)).status, path).toBe(200);
    }
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/links`, { notInOpenApi: NOT_IN_OPENAPI })).status).toBe(401);
  });
});

describe("links and backlinks of a change request", () => {
  it("lists the links of the change request's content, by id or number, while the space's stay as they are", async () => {
    await seed(async (draftId, caller) => {
      await createPage(caller, draftId, { pageId: "target", title: "Target", markdown: "Here." });
      await createPage(caller, draftId, { pageId: "source", title: "Source", markdown: "[to target](/pages/target)" });
    });
    const created = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, { token: org.owner.token, json: { subject: "More links" } });
    expect(created.status).toBe(201);
    const { id, number } = created.body as { id: string; number: number };
    await commitEdits(editing, { userId: org.owner.userId, spaceId, changeRequestId: id }, (draft) =>
      draft.createPage({ pageId: "extra", title: "Extra", markdown: "[back to source](/pages/source) [nowhere](/pages/nowhere)" }),
    );

    const changeRequestPath = (changeRequestId: string | number) => `/v1/spaces/${spaceId}/change-requests/${changeRequestId}`;
    const links = await get("changeRequestLinks", `${changeRequestPath(number)}/links`);
    expect(links.status).toBe(200);
    expect(summary(links.body).sort()).toEqual([
      "broken reference (missing) <- extra",
      "ok reference page:source <- extra",
      "ok reference page:target <- source",
    ]);
    expect(links.body.stats).toMatchObject({ total: 3, broken: { total: 1 } });
    expect(summary((await get("changeRequestLinks", `${changeRequestPath(id)}/links?status=broken`)).body)).toEqual(["broken reference (missing) <- extra"]);
    const pageLinks = await get("changeRequestPageLinks", `${changeRequestPath(id)}/content/page/extra/links`);
    expect(pageLinks.body.count).toBe(2);
    const backlinks = await get("changeRequestPageBacklinks", `${changeRequestPath(number)}/content/page/source/backlinks`);
    expect(pageIds(backlinks.body)).toEqual(["extra"]);

    // The space's content has none of the change request's links.
    expect(summary((await get("spaceLinks", `/v1/spaces/${spaceId}/links`)).body)).toEqual(["ok reference page:target <- source"]);
    expect((await get("pageBacklinks", `/v1/spaces/${spaceId}/content/page/source/backlinks`)).body).toMatchObject({ items: [], count: 0 });
    expect((await get("pageLinks", `/v1/spaces/${spaceId}/content/page/extra/links`)).status).toBe(404);
    const other = await createOrganization(stack);
    expect((await get("changeRequestLinks", `${changeRequestPath(number)}/links`, other.owner.token)).status).toBe(404);
  });
});
