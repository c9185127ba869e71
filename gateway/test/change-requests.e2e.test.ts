import { eventually } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeRequest } from "../../node_modules/@gitbook/api/dist/client.js";
import { commitEdits, startEditingStack, stopEditingStack, type DraftEdits, type EditingClient } from "./support/editing.js";
import { createMember, createOrganization, createOrganizationWithSpace, createSpace, type TestOrganization } from "./support/factories.js";
import { call, type CallOptions, type CallResult } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * Change requests end to end: created and changed through the gateway, their branches edited
 * through the content service's editing API (drafts opened with the change request), read under
 * /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content and merged back three-way. Every
 * response is checked against GitBook's OpenAPI.
 */
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

const PARAGRAPHS = "First paragraph.\n\nSecond paragraph.\n\nThird paragraph.";

/** The space's main content: two pages. Returns the space's new revision. */
const seedMain = () =>
  editMain(async (draft) => {
    await draft.createPage({ pageId: "intro", title: "Intro", markdown: PARAGRAPHS });
    await draft.createPage({ pageId: "faq", title: "FAQ", markdown: "Questions." });
  });

const editMain = (work: (draft: DraftEdits) => Promise<unknown>) => commitEdits(editing, { userId: org.owner.userId, spaceId }, work);
const editBranch = (changeRequestId: string | number, work: (draft: DraftEdits) => Promise<unknown>, userId = org.owner.userId) =>
  commitEdits(editing, { userId, spaceId, changeRequestId: String(changeRequestId) }, work);
const setIntro = (markdown: string) => (draft: DraftEdits) => draft.updatePage({ pageId: "intro", markdown });

const crPath = (changeRequestId: string | number, rest = "") => `/v1/spaces/${spaceId}/change-requests/${changeRequestId}${rest}`;
const as = (token: string, options: CallOptions = {}): CallOptions => ({ token, ...options });
const owner = (options: CallOptions = {}) => as(org.owner.token, options);

async function createChangeRequest(json: unknown = { subject: "Proposal" }, token = org.owner.token): Promise<ChangeRequest> {
  const response = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, { token, json });
  if (response.status !== 201) throw new Error(`createChangeRequest answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as ChangeRequest;
}

const getChangeRequest = async (changeRequestId: string | number): Promise<ChangeRequest> =>
  (await call(stack, "GET", crPath(changeRequestId), owner())).body as ChangeRequest;

/** Markdown of a page under a content prefix (`/v1/spaces/{id}/content` or a change request's). */
async function markdownAt(contentPath: string, pageId: string): Promise<string> {
  const response = await call(stack, "GET", `${contentPath}/page/${pageId}?format=markdown`, owner());
  expect(response.status).toBe(200);
  return response.body.markdown as string;
}
const spaceContent = () => `/v1/spaces/${spaceId}/content`;
const crContent = (changeRequestId: string | number) => crPath(changeRequestId, "/content");
const currentRevision = async () => (await call(stack, "GET", `/v1/spaces/${spaceId}`, owner())).body.revision as string;
const listed = (response: CallResult) => (response.body.items as ChangeRequest[]).map((cr) => cr.subject);

describe("creating and reading change requests", () => {
  it("creates numbered change requests (201 + Location) forked from the space's revision, read by id or by number", async () => {
    const initial = await seedMain();
    const created = await org.owner.api.spaces.createChangeRequest(spaceId, { subject: "Fix the intro", agentTaskId: "task-7" });
    expect(created.status).toBe(201);
    const first = created.data;
    expect(first).toMatchObject({
      object: "change-request",
      number: 1,
      status: "open",
      subject: "Fix the intro",
      space: spaceId,
      revision: initial,
      revisionInitial: initial,
      comments: 0,
      outdated: false,
      createdBy: { id: org.owner.userId, email: org.owner.email },
    });
    expect(first.revisionMerged).toBeUndefined();
    expect(created.headers.get("location")).toBe(`${stack.baseUrl}/v1/spaces/${spaceId}/change-requests/${first.id}`);
    expect(first.urls).toEqual({ location: created.headers.get("location"), app: expect.stringContaining(`/s/${spaceId}/~/changes/1/`) as unknown });

    // GitBook's template is accepted (and ignored); numbers follow per space.
    const second = await createChangeRequest({ subject: "Second", template: { type: "space", space: spaceId } });
    expect(second.number).toBe(2);
    const otherSpace = await createSpace(stack, org);
    const elsewhere = await call(stack, "POST", `/v1/spaces/${otherSpace.id}/change-requests`, owner({ json: {} }));
    expect(elsewhere.body).toMatchObject({ number: 1, subject: "" });

    const byId = await org.owner.api.spaces.getChangeRequestById(spaceId, first.id);
    const byNumber = await org.owner.api.spaces.getChangeRequestById(spaceId, "1");
    expect(byNumber.data).toEqual(byId.data);
    expect(byId.data.id).toBe(first.id);

    expect((await call(stack, "GET", crPath(99), owner())).status).toBe(404);
    expect((await call(stack, "GET", crPath("00000000-0000-4000-8000-000000000000"), owner())).status).toBe(404);
    const longSubject = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, owner({ json: { subject: "x".repeat(101) } }));
    expect(longSubject.status).toBe(400);
    expect(longSubject.body.error.message).toBe("subject: must be at most 100 characters");
  });

  it("needs edit rights to create; readers read", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const reader = await createMember(stack, org, { role: "read" });
    expect((await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, as(reader.token, { json: { subject: "No" } }))).status).toBe(403);
    expect((await call(stack, "PATCH", crPath(cr.id), as(reader.token, { json: { subject: "No" } }))).status).toBe(403);
    expect((await call(stack, "POST", crPath(cr.id, "/merge"), as(reader.token))).status).toBe(403);
    const read = await reader.api.spaces.getChangeRequestById(spaceId, cr.id);
    expect(read.data.subject).toBe("Proposal");
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/change-requests`)).status).toBe(401);
  });

  it("lists by status (open by default), creator and contributor, newest activity or creation first, paged", async () => {
    await seedMain();
    const editor = await createMember(stack, org, { role: "edit" });
    const a = await createChangeRequest({ subject: "A" });
    await createChangeRequest({ subject: "B" }, editor.token);
    const c = await createChangeRequest({ subject: "C" });
    const d = await createChangeRequest({ subject: "D" });
    expect((await call(stack, "PATCH", crPath(c.id), owner({ json: { status: "draft" } }))).body.status).toBe("draft");
    expect((await call(stack, "PATCH", crPath(d.number), owner({ json: { status: "archived" } }))).body.status).toBe("archived");
    const list = (query = "") => call(stack, "GET", `/v1/spaces/${spaceId}/change-requests${query}`, owner());

    const open = await list();
    expect(listed(open)).toEqual(["B", "A"]);
    expect(open.body.count).toBe(2);
    expect(listed(await list("?status=draft"))).toEqual(["C"]);
    expect(listed(await list("?status=archived"))).toEqual(["D"]);
    expect(listed(await list("?status=merged"))).toEqual([]);
    expect(listed(await list(`?creator=${editor.userId}`))).toEqual(["B"]);
    expect(listed(await list(`?status=draft&creator=${editor.userId}`))).toEqual([]);

    // The editor commits on A's branch: A is now theirs too, and the most recently active.
    await editBranch(a.id, setIntro("Edited by the editor."), editor.userId);
    await eventually(async () => listed(await list(`?contributor=${editor.userId}`)).join() === "A,B");
    await eventually(async () => listed(await list()).join() === "A,B");
    expect(listed(await list("?orderBy=createdAt"))).toEqual(["B", "A"]);
    expect(listed(await list(`?contributor=${org.owner.userId}&status=open`))).toEqual(["A"]);

    // Nobody was asked to review, and Imprint has no site topics: nothing matches those filters.
    const reviewer = await list(`?requestedReviewer=${editor.userId}`);
    expect(reviewer.body).toEqual({ items: [], count: 0 });
    expect((await list("?topic=topic-1")).body).toEqual({ items: [], count: 0 });

    const firstPage = await list("?limit=1");
    expect(firstPage.body.count).toBe(2);
    const secondPage = await list(`?limit=1&page=${encodeURIComponent(firstPage.body.next.page as string)}`);
    expect([...listed(firstPage), ...listed(secondPage)]).toEqual(["A", "B"]);
    expect(secondPage.body.next).toBeUndefined();

    const badStatus = await list("?status=closed");
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toMatch(/^status: must be one of "draft", "open", "archived", "merged"/);
    expect((await list("?orderBy=title")).status).toBe(400);
  });
});

describe("PATCH /v1/spaces/{spaceId}/change-requests/{changeRequestId}", () => {
  it("changes subject, description and status; answers 204 for Prefer: return=minimal", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const updated = await call(
      stack,
      "PATCH",
      crPath(cr.id),
      owner({ json: { subject: "Better subject", description: { markdown: "Why: **clarity**." }, status: "draft" } }),
    );
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ subject: "Better subject", status: "draft" });
    expect(updated.body.description).toMatchObject({ object: "document", nodes: [expect.objectContaining({ type: "paragraph" })] });
    expect(new Date(updated.body.updatedAt as string).getTime()).toBeGreaterThanOrEqual(new Date(cr.updatedAt).getTime());
    // A description may also be sent as a plain markdown string.
    const plain = await call(stack, "PATCH", crPath(cr.number), owner({ json: { description: "Plain." } }));
    expect(JSON.stringify(plain.body.description)).toContain("Plain.");

    const minimal = await call(stack, "PATCH", crPath(cr.number), owner({ json: { status: "open" }, headers: { prefer: "return=minimal" } }));
    expect(minimal.status).toBe(204);
    expect(minimal.headers.get("preference-applied")).toBe("return=minimal");
    expect(minimal.body).toBeUndefined();
    expect((await getChangeRequest(cr.id)).status).toBe("open");
    const representation = await call(stack, "PATCH", crPath(cr.number), owner({ json: { subject: "Again" }, headers: { prefer: "return=representation" } }));
    expect(representation.status).toBe(200);
    expect(representation.body.subject).toBe("Again");
  });

  it("answers 400 for a subject over 100 characters and for status merged, changing nothing", async () => {
    await seedMain();
    const cr = await createChangeRequest({ subject: "Kept" });
    const long = await call(stack, "PATCH", crPath(cr.id), owner({ json: { subject: "s".repeat(101) } }));
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe("subject: must be at most 100 characters");
    expect((await call(stack, "PATCH", crPath(cr.id), owner({ json: { subject: "s".repeat(100) } }))).status).toBe(200);
    const merged = await call(stack, "PATCH", crPath(cr.id), owner({ json: { status: "merged" } }));
    expect(merged.status).toBe(400);
    expect(merged.body.error.message).toMatch(/^status: .*merge/);
    expect(await getChangeRequest(cr.id)).toMatchObject({ status: "open", subject: "s".repeat(100) });
  });
});

describe("content of a change request and merging", () => {
  it("serves the branch under the change-request prefix by id and by number while the space's content stays; merge brings it in", async () => {
    const initial = await seedMain();
    const cr = await createChangeRequest({ subject: "Revise intro" });
    const head = await editBranch(cr.id, async (draft) => {
      await draft.updatePage({ pageId: "intro", markdown: "First paragraph.\n\nSecond paragraph, revised.\n\nThird paragraph." });
      await draft.createPage({ pageId: "changelog", title: "Changelog", markdown: "Version 2." });
    });

    const byId = await org.owner.api.spaces.getRevisionOfChangeRequestById(spaceId, cr.id);
    const byNumber = await org.owner.api.spaces.getRevisionOfChangeRequestById(spaceId, String(cr.number));
    expect(byId.data.id).toBe(head);
    expect(byNumber.data.id).toBe(head);
    expect(byId.data.parents).toEqual([initial]);
    const pages = await org.owner.api.spaces.listPagesInChangeRequest(spaceId, String(cr.number));
    expect(pages.data.pages.map((page) => page.id)).toEqual(["intro", "faq", "changelog"]);
    expect(await markdownAt(crContent(cr.id), "intro")).toContain("Second paragraph, revised.");
    const byPath = await org.owner.api.spaces.getPageInChangeRequestByPath(spaceId, String(cr.number), "changelog", { format: "markdown" });
    expect(byPath.data).toMatchObject({ id: "changelog", path: "changelog" });
    // App links of a change request's pages lead into the change request, not the space.
    expect(byPath.data).toMatchObject({ urls: { app: expect.stringContaining(`/s/${spaceId}/~/changes/${cr.number}/changelog`) as unknown } });
    expect((await call(stack, "GET", crContent(cr.number) + "/files", owner())).body).toEqual({ items: [], count: 0 });

    // The space's content is untouched until the merge.
    expect(await currentRevision()).toBe(initial);
    expect(await markdownAt(spaceContent(), "intro")).toBe(PARAGRAPHS);
    expect((await call(stack, "GET", `${spaceContent()}/page/changelog`, owner())).status).toBe(404);
    expect(await getChangeRequest(cr.id)).toMatchObject({ revision: head, revisionInitial: initial, outdated: false });

    const merge = await org.owner.api.spaces.mergeChangeRequest(spaceId, cr.id);
    expect(merge.data).toEqual({ revision: expect.any(String) as unknown, result: "merge" });
    const merged = merge.data.revision;
    expect(await currentRevision()).toBe(merged);
    expect(await markdownAt(spaceContent(), "intro")).toContain("Second paragraph, revised.");
    expect(await markdownAt(spaceContent(), "changelog")).toBe("Version 2.");
    const after = await getChangeRequest(cr.number);
    expect(after).toMatchObject({ status: "merged", revisionMerged: merged, outdated: false });
    expect(listed(await call(stack, "GET", `/v1/spaces/${spaceId}/change-requests?status=merged`, owner()))).toEqual(["Revise intro"]);

    // Merging again answers the same merge; a merged change request keeps its status.
    expect((await call(stack, "POST", crPath(cr.number, "/merge"), owner())).body).toEqual({ revision: merged, result: "merge" });
    expect((await call(stack, "PATCH", crPath(cr.id), owner({ json: { status: "open" } }))).status).toBe(412);
  });

  it("merges two change requests that edit different pages", async () => {
    await seedMain();
    const first = await createChangeRequest({ subject: "Intro" });
    const second = await createChangeRequest({ subject: "FAQ" });
    await editBranch(first.id, setIntro("New intro."));
    await editBranch(second.id, (draft) => draft.updatePage({ pageId: "faq", markdown: "New answers." }));
    expect((await call(stack, "POST", crPath(first.id, "/merge"), owner())).status).toBe(200);
    expect((await getChangeRequest(second.id)).outdated).toBe(true);
    expect((await call(stack, "POST", crPath(second.number, "/merge"), owner())).status).toBe(200);
    expect(await markdownAt(spaceContent(), "intro")).toBe("New intro.");
    expect(await markdownAt(spaceContent(), "faq")).toBe("New answers.");
  });

  it("merges two change requests that edit different paragraphs of one page", async () => {
    await seedMain();
    const first = await createChangeRequest({ subject: "Top" });
    const second = await createChangeRequest({ subject: "Bottom" });
    await editBranch(first.id, setIntro("First paragraph, sharpened.\n\nSecond paragraph.\n\nThird paragraph."));
    await editBranch(second.id, setIntro("First paragraph.\n\nSecond paragraph.\n\nThird paragraph, extended."));
    expect((await call(stack, "POST", crPath(first.id, "/merge"), owner())).status).toBe(200);
    expect((await call(stack, "POST", crPath(second.id, "/merge"), owner())).status).toBe(200);
    expect(await markdownAt(spaceContent(), "intro")).toBe("First paragraph, sharpened.\n\nSecond paragraph.\n\nThird paragraph, extended.");
  });

  it("answers 409 naming the page when two change requests change the same paragraph, and changes nothing", async () => {
    await seedMain();
    const first = await createChangeRequest({ subject: "One" });
    const second = await createChangeRequest({ subject: "Two" });
    await editBranch(first.id, setIntro("First paragraph.\n\nSecond paragraph, one way.\n\nThird paragraph."));
    const secondHead = await editBranch(second.id, setIntro("First paragraph.\n\nSecond paragraph, another way.\n\nThird paragraph."));
    const merged = (await call(stack, "POST", crPath(first.id, "/merge"), owner())).body.revision as string;

    const conflict = await call(stack, "POST", crPath(second.id, "/merge"), owner());
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.message).toContain('"Intro" (page intro');
    expect(await currentRevision()).toBe(merged);
    expect(await markdownAt(spaceContent(), "intro")).toContain("Second paragraph, one way.");
    const unchanged = await getChangeRequest(second.id);
    expect(unchanged).toMatchObject({ status: "open", revision: secondHead });
    expect(unchanged.revisionMerged).toBeUndefined();
    // Updating from main meets the same conflict.
    expect((await call(stack, "POST", crPath(second.id, "/update"), owner())).status).toBe(409);
  });

  it("updates a change request from the space's content, which clears outdated", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    await editBranch(cr.id, setIntro("Intro from the change request."));
    expect((await getChangeRequest(cr.id)).outdated).toBe(false);
    const main = await editMain((draft) => draft.updatePage({ pageId: "faq", markdown: "Answered on main." }));
    expect((await getChangeRequest(cr.id)).outdated).toBe(true);

    const update = await org.owner.api.spaces.updateChangeRequest(spaceId, String(cr.number));
    expect(update.data).toEqual({ revision: expect.any(String) as unknown, result: "update" });
    const after = await getChangeRequest(cr.id);
    expect(after).toMatchObject({ outdated: false, revision: update.data.revision, revisionMergedAncestor: main });
    expect(await markdownAt(crContent(cr.id), "faq")).toBe("Answered on main.");
    expect(await markdownAt(crContent(cr.id), "intro")).toBe("Intro from the change request.");
    expect(await markdownAt(spaceContent(), "intro")).toBe(PARAGRAPHS);

    // Merging the updated change request adds only its own change.
    expect((await call(stack, "POST", crPath(cr.id, "/merge"), owner())).status).toBe(200);
    expect(await markdownAt(spaceContent(), "intro")).toBe("Intro from the change request.");
    expect(await markdownAt(spaceContent(), "faq")).toBe("Answered on main.");
  });

  it("addresses a change request by its number in every operation", async () => {
    await seedMain();
    await createChangeRequest({ subject: "Unused" });
    const cr = await createChangeRequest({ subject: "By number" });
    const n = cr.number;
    expect(n).toBe(2);
    expect((await getChangeRequest(n)).id).toBe(cr.id);
    expect((await call(stack, "PATCH", crPath(n), owner({ json: { subject: "Renamed" } }))).body.id).toBe(cr.id);
    await editBranch(n, setIntro("Edited through the number."));
    expect(await markdownAt(crContent(n), "intro")).toBe("Edited through the number.");
    expect((await call(stack, "GET", crContent(n) + "/pages", owner())).status).toBe(200);
    const comment = await call(stack, "POST", crPath(n, "/comments"), owner({ json: { page: "intro", body: { markdown: "Looks good." } } }));
    expect(comment.status).toBe(200);
    expect(comment.body.target.changeRequest).toBe(cr.id);
    expect((await call(stack, "GET", crPath(n, "/comments"), owner())).body.count).toBe(1);
    expect((await call(stack, "GET", crPath(n, "/commenters"), owner())).body.items.map((m: { id: string }) => m.id)).toEqual([org.owner.userId]);
    await eventually(async () => (await getChangeRequest(n)).comments === 1);
    expect((await call(stack, "POST", crPath(n, "/update"), owner())).body.result).toBe("update");
    expect((await call(stack, "POST", crPath(n, "/merge"), owner())).body.result).toBe("merge");
    expect(await markdownAt(spaceContent(), "intro")).toBe("Edited through the number.");
  });

  it("renders a change request's content to a PDF behind a signed URL, whole or one page", async () => {
    await seedMain();
    const cr = await createChangeRequest({ subject: "Document it" });
    await editBranch(cr.id, async (draft) => {
      await draft.createPage({ pageId: "guide", title: "Only in the branch", markdown: "# Setup\n\n- install\n- run\n\n```sh\nnpm start\n```" });
    });
    const download = async (url: string) => {
      // A capability URL: no bearer token.
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/pdf");
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
      return bytes;
    };
    const whole = await call(stack, "GET", crPath(cr.number, "/pdf"), owner());
    expect(whole.status).toBe(200);
    expect(Object.keys(whole.body)).toEqual(["url"]);
    const wholeBytes = await download(whole.body.url as string);
    const onePage = await call(stack, "GET", crPath(cr.id, "/pdf?page=guide&only=true"), owner());
    expect(onePage.status).toBe(200);
    const onePageBytes = await download(onePage.body.url as string);
    expect(onePageBytes.length).toBeLessThan(wholeBytes.length);
    // The branch's page exists only there: the space's content has no such page to render.
    expect((await call(stack, "GET", crPath(cr.id, "/pdf?page=nowhere"), owner())).status).toBe(404);
    expect((await call(stack, "GET", crPath(cr.id, "/pdf?only=maybe"), owner())).status).toBe(400);
    const outsider = await createOrganization(stack);
    expect((await call(stack, "GET", crPath(cr.id, "/pdf"), as(outsider.owner.token))).status).toBe(404);
  });
});

describe("isolation and counters", () => {
  it("answers 404 to another organization on every change-request endpoint, changing nothing", async () => {
    await seedMain();
    const cr = await createChangeRequest({ subject: "Private" });
    const other = await createOrganization(stack);
    const linksOnly = { notInOpenApi: "link listings exist up to @gitbook/api 0.181.0 only (links.e2e.test.ts checks their shape)" };
    const importOnly = { notInOpenApi: "importContentInChangeRequest exists in @gitbook/api 0.143.2 only" };
    const requests: [string, string, CallOptions][] = [
      ["GET", `/v1/spaces/${spaceId}/change-requests`, {}],
      ["POST", `/v1/spaces/${spaceId}/change-requests`, { json: { subject: "Intrusion" } }],
      ...[cr.id, String(cr.number)].flatMap((id): [string, string, CallOptions][] => [
        ["GET", crPath(id), {}],
        ["PATCH", crPath(id), { json: { subject: "Taken" } }],
        ["POST", crPath(id, "/merge"), {}],
        ["POST", crPath(id, "/update"), {}],
        ["GET", crContent(id), {}],
        ["GET", crContent(id) + "/pages", {}],
        ["GET", crContent(id) + "/files", {}],
        ["GET", crContent(id) + "/page/intro", {}],
        ["GET", crContent(id) + "/path/intro", {}],
        ["GET", crPath(id, "/links"), linksOnly],
        ["GET", crContent(id) + "/page/intro/links", linksOnly],
        ["GET", crContent(id) + "/page/intro/backlinks", linksOnly],
        ["POST", crContent(id) + "/import", { json: { url: "http://127.0.0.1:1/", source: "website" }, ...importOnly }],
      ]),
    ];
    for (const [method, path, options] of requests) {
      const response = await call(stack, method, path, as(other.owner.token, options));
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
    }
    expect(await getChangeRequest(cr.id)).toMatchObject({ subject: "Private", status: "open" });
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/change-requests`, owner())).body.count).toBe(1);
  });

  it("keeps the space's counters in step with its change requests and comments", async () => {
    await seedMain();
    const counters = async () => {
      const { body } = await call(stack, "GET", `/v1/spaces/${spaceId}`, owner());
      return { changeRequests: body.changeRequests, open: body.changeRequestsOpen, draft: body.changeRequestsDraft, comments: body.comments } as Record<
        string,
        number
      >;
    };
    const reach = (expected: Record<string, number>) => eventually(async () => JSON.stringify(await counters()) === JSON.stringify(expected), 10_000);
    expect(await counters()).toEqual({ changeRequests: 0, open: 0, draft: 0, comments: 0 });

    const first = await createChangeRequest();
    const second = await createChangeRequest();
    await reach({ changeRequests: 2, open: 2, draft: 0, comments: 0 });
    await call(stack, "PATCH", crPath(second.id), owner({ json: { status: "draft" } }));
    await reach({ changeRequests: 2, open: 1, draft: 1, comments: 0 });

    // Open comments on the space itself count; those on change requests and resolved ones do not.
    const comment = await call(stack, "POST", `/v1/spaces/${spaceId}/comments`, owner({ json: { body: { markdown: "A question." } } }));
    await call(stack, "POST", crPath(first.id, "/comments"), owner({ json: { body: { markdown: "On the change request." } } }));
    await reach({ changeRequests: 2, open: 1, draft: 1, comments: 1 });
    await call(stack, "PUT", `/v1/spaces/${spaceId}/comments/${comment.body.id}`, owner({ json: { resolved: true } }));
    await reach({ changeRequests: 2, open: 1, draft: 1, comments: 0 });

    await call(stack, "POST", crPath(first.id, "/merge"), owner());
    await reach({ changeRequests: 2, open: 0, draft: 1, comments: 0 });
  });
});
