import { eventually } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Comment, CommentReply } from "../../node_modules/@gitbook/api/dist/client.js";
import { commitEdits, startEditingStack, stopEditingStack, type EditingClient } from "./support/editing.js";
import { createMember, createOrganization, createOrganizationWithSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, type CallOptions, type CallResult } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * Comments and replies end to end, on a space's content and on a change request's: the same
 * operations under both prefixes, through GitBook's client and plain HTTP, every response checked
 * against GitBook's OpenAPI.
 */
let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;
let spaceId: string;
let commenter: TestUser;

beforeAll(async () => {
  ({ stack, editing } = await startEditingStack());
});
afterAll(() => stopEditingStack(stack, editing));
beforeEach(async () => {
  ({ org, spaceId } = await createOrganizationWithSpace(stack));
  commenter = await createMember(stack, org, { role: "comment", displayName: "Cora Commenter" });
  await commitEdits(editing, { userId: org.owner.userId, spaceId }, async (draft) => {
    await draft.createPage({ pageId: "guide", title: "Guide", emoji: "📘", markdown: "Read this first.\n\n## Next steps\n\nThen read this." });
    await draft.createPage({ pageId: "faq", title: "FAQ", markdown: "Questions and answers." });
  });
});

const as = (user: TestUser, options: CallOptions = {}): CallOptions => ({ token: user.token, ...options });
const markdown = (text: string) => ({ body: { markdown: text } });

/** Where a kind of thread lives: the space itself, or a new change request of it (named by its number). */
type Kind = "space" | "change request";
interface Thread {
  /** `/v1/spaces/{spaceId}` or `/v1/spaces/{spaceId}/change-requests/{number}`. */
  base: string;
  /** The change request's id (`target.changeRequest`), undefined on the space. */
  changeRequestId?: string;
  /** Where the thread's content is read. */
  content: string;
}

async function openThread(kind: Kind): Promise<Thread> {
  const space = `/v1/spaces/${spaceId}`;
  if (kind === "space") return { base: space, content: `${space}/content` };
  const created = await call(stack, "POST", `${space}/change-requests`, as(org.owner, { json: { subject: "Discuss" } }));
  expect(created.status).toBe(201);
  const base = `${space}/change-requests/${created.body.number as number}`;
  return { base, changeRequestId: created.body.id as string, content: `${base}/content` };
}

/**
 * Identifier of the `index`-th top-level node of a page's document, as read through the API: its
 * `key`, or for a heading its anchor (the stable names Imprint's documents give blocks).
 */
async function nodeOf(thread: Thread, pageId: string, index: number): Promise<string> {
  const page = await call(stack, "GET", `${thread.content}/page/${pageId}`, as(org.owner));
  const node = (page.body.document.nodes as { key?: string; data?: { id?: string } }[])[index];
  const id = node?.key ?? node?.data?.id;
  if (!id) throw new Error(`page ${pageId} has no named node ${index}: ${JSON.stringify(page.body.document)}`);
  return id;
}

async function post(thread: Thread, json: unknown, user: TestUser = org.owner): Promise<Comment> {
  const response = await call(stack, "POST", `${thread.base}/comments`, as(user, { json }));
  if (response.status !== 200) throw new Error(`postComment answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as Comment;
}

const comment = (thread: Thread, id: string, rest = "") => `${thread.base}/comments/${id}${rest}`;
const ids = (response: CallResult) => (response.body.items as { id: string }[]).map((item) => item.id);

describe.each<Kind>(["space", "change request"])("comments on a %s", (kind) => {
  let thread: Thread;
  beforeEach(async () => {
    thread = await openThread(kind);
  });

  it("posts a comment on a page and a node, and reads it back as a document or as markdown", async () => {
    const node = await nodeOf(thread, "guide", 1);
    const revision = (await call(stack, "GET", thread.content, as(org.owner))).body.id as string;
    const posted = await post(thread, { page: "guide", node, ...markdown("Is this **right**?") });
    expect(posted).toMatchObject({
      object: "comment",
      postedBy: { id: org.owner.userId },
      replies: 0,
      repliers: [],
      reactions: [],
      status: "open",
      permissions: { view: true, edit: true, reply: true, delete: true },
      target: {
        space: spaceId,
        revision,
        node: { id: node, preview: "Next steps" },
        page: { id: "guide", title: "Guide", emoji: "📘", path: "guide", outdated: false },
      },
    });
    expect(posted.target.changeRequest).toBe(thread.changeRequestId);
    expect(posted.body).toMatchObject({ document: { object: "document", nodes: [expect.objectContaining({ type: "paragraph" })] } });
    expect(JSON.stringify(posted.body)).toContain('"type":"bold"');

    // urls.location names the comment under its change request's id; it answers the same comment.
    const located = await call(stack, "GET", posted.urls.location.slice(stack.baseUrl.length), as(org.owner));
    expect(located.body.id).toBe(posted.id);
    const asMarkdown = await call(stack, "GET", comment(thread, posted.id, "?format=markdown"), as(commenter));
    expect(asMarkdown.body.body).toEqual({ markdown: "Is this **right**?" });
    expect(asMarkdown.body.permissions).toEqual({ view: true, edit: false, reply: true, delete: false });

    // A comment on the content as a whole has no page.
    const general = await post(thread, markdown("General remark."));
    expect(general.target.page).toBeUndefined();

    const noBody = await call(stack, "POST", `${thread.base}/comments`, as(org.owner, { json: { page: "guide" } }));
    expect(noBody.status).toBe(400);
    expect(noBody.body.error.message).toBe("body: is required");
    const nodeWithoutPage = await call(stack, "POST", `${thread.base}/comments`, as(org.owner, { json: { node, ...markdown("Where?") } }));
    expect(nodeWithoutPage.status).toBe(400);
    expect((await call(stack, "GET", comment(thread, "nope"), as(org.owner))).status).toBe(404);
  });

  it("lists newest first or oldest first, by status, page and authors, in either format, paged", async () => {
    const first = await post(thread, { page: "guide", ...markdown("First.") });
    const second = await post(thread, { page: "faq", ...markdown("Second.") }, commenter);
    const third = await post(thread, { page: "guide", ...markdown("Third.") });
    await call(stack, "PUT", comment(thread, first.id), as(org.owner, { json: { resolved: true } }));
    const list = (query = "") => call(stack, "GET", `${thread.base}/comments${query}`, as(org.owner));

    expect(ids(await list())).toEqual([third.id, second.id, first.id]);
    expect(ids(await list("?order=asc"))).toEqual([first.id, second.id, third.id]);
    expect(ids(await list("?status=open"))).toEqual([third.id, second.id]);
    expect(ids(await list("?status=resolved"))).toEqual([first.id]);
    expect(ids(await list("?status=all&targetPage=faq"))).toEqual([second.id]);
    expect(ids(await list(`?authors=${commenter.userId}`))).toEqual([second.id]);
    expect(ids(await list(`?authors=${commenter.userId},${org.owner.userId}&order=asc`))).toEqual([first.id, second.id, third.id]);

    // GitBook's client sends `authors` as a repeated parameter.
    const query = { authors: [org.owner.userId], format: "markdown" as const };
    const { data } = thread.changeRequestId
      ? await org.owner.api.spaces.listCommentsInChangeRequest(spaceId, thread.changeRequestId, query)
      : await org.owner.api.spaces.listCommentsInSpace(spaceId, query);
    expect(data.items.map((item) => item.body)).toEqual([{ markdown: "Third." }, { markdown: "First." }]);
    expect((await list()).body.items[0].body.document.object).toBe("document");

    const page1 = await list("?limit=2");
    expect(page1.body.count).toBe(3);
    const page2 = await list(`?limit=2&page=${encodeURIComponent(page1.body.next.page as string)}`);
    expect([...ids(page1), ...ids(page2)]).toEqual([third.id, second.id, first.id]);
    expect(page2.body.next).toBeUndefined();

    const badOrder = await list("?order=newest");
    expect(badOrder.status).toBe(400);
    expect(badOrder.body.error.message).toBe('order: must be one of "asc", "desc"');
    expect((await list("?status=closed")).status).toBe(400);
    expect((await list("?format=html")).status).toBe(400);
  });

  it("adds and removes reactions per user", async () => {
    const posted = await post(thread, markdown("React to me."));
    const put = (user: TestUser, json: unknown) => call(stack, "PUT", comment(thread, posted.id), as(user, { json }));
    await put(org.owner, { addedReactions: ["👍", "🎉"] });
    await put(commenter, { addedReactions: ["👍"] });
    const twice = await put(org.owner, { addedReactions: ["👍"] });
    const summary = (reactions: Comment["reactions"]) =>
      reactions.map((reaction) => [reaction.emoji, reaction.count, reaction.users.map((entry) => entry.user.id)]);
    expect(summary(twice.body.reactions as Comment["reactions"])).toEqual([
      ["👍", 2, [org.owner.userId, commenter.userId]],
      ["🎉", 1, [org.owner.userId]],
    ]);
    expect(twice.body.reactions[0].users[0].reactedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const removed = await put(org.owner, { removedReactions: ["👍", "🎉"] });
    expect(summary(removed.body.reactions as Comment["reactions"])).toEqual([["👍", 1, [commenter.userId]]]);
  });

  it("resolves and reopens a comment, and edits its body", async () => {
    const posted = await post(thread, markdown("Needs a decision."));
    const resolved = await call(stack, "PUT", comment(thread, posted.id), as(commenter, { json: { resolved: true } }));
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: "resolved", resolvedBy: { id: commenter.userId } });
    expect(Date.parse(resolved.body.resolvedAt as string)).toBeGreaterThanOrEqual(Date.parse(posted.postedAt));
    const reopened = await call(stack, "PUT", comment(thread, posted.id), as(org.owner, { json: { resolved: false } }));
    expect(reopened.body.status).toBe("open");
    expect(reopened.body.resolvedAt).toBeUndefined();
    expect(reopened.body.resolvedBy).toBeUndefined();

    const edited = await call(stack, "PUT", comment(thread, posted.id), as(org.owner, { json: markdown("Decided.") }));
    expect(edited.body.editedAt).toEqual(expect.any(String));
    expect((await call(stack, "GET", comment(thread, posted.id, "?format=markdown"), as(org.owner))).body.body).toEqual({ markdown: "Decided." });
  });

  it("posts, lists, reads, edits, reacts to and deletes replies", async () => {
    const posted = await post(thread, { page: "faq", ...markdown("Any questions?") });
    const reply = async (user: TestUser, text: string): Promise<CommentReply> => {
      const response = await call(stack, "POST", comment(thread, posted.id, "/replies"), as(user, { json: markdown(text) }));
      expect(response.status).toBe(200);
      return response.body as CommentReply;
    };
    const one = await reply(commenter, "One.");
    const two = await reply(commenter, "Two.");
    const three = await reply(org.owner, "Three.");
    expect(one).toMatchObject({
      object: "comment-reply",
      postedBy: { id: commenter.userId },
      reactions: [],
      permissions: { view: true, edit: true, delete: true },
    });
    expect(one.urls.location).toMatch(new RegExp(`/comments/${posted.id}/replies/${one.id}$`));

    const parent = await call(stack, "GET", comment(thread, posted.id), as(org.owner));
    expect(parent.body.replies).toBe(3);
    expect((parent.body.repliers as { user: { id: string }; count: number }[]).map((replier) => [replier.user.id, replier.count])).toEqual([
      [commenter.userId, 2],
      [org.owner.userId, 1],
    ]);

    const listed = await call(stack, "GET", comment(thread, posted.id, "/replies?format=markdown"), as(org.owner));
    expect(listed.body.items.map((item: CommentReply) => item.body)).toEqual([{ markdown: "One." }, { markdown: "Two." }, { markdown: "Three." }]);
    const paged = await call(stack, "GET", comment(thread, posted.id, "/replies?limit=2"), as(org.owner));
    expect(ids(paged)).toEqual([one.id, two.id]);
    expect(paged.body.next.page).toEqual(expect.any(String));

    const replyPath = (id: string, rest = "") => comment(thread, posted.id, `/replies/${id}${rest}`);
    expect((await call(stack, "GET", replyPath(two.id), as(org.owner))).body.body.document.object).toBe("document");
    const edited = await call(stack, "PUT", replyPath(two.id), as(commenter, { json: { ...markdown("Two, edited."), addedReactions: ["👀"] } }));
    expect(edited.body).toMatchObject({ editedAt: expect.any(String) as unknown, reactions: [{ emoji: "👀", count: 1 }] });
    expect((await call(stack, "GET", replyPath(two.id, "?format=markdown"), as(org.owner))).body.body).toEqual({ markdown: "Two, edited." });
    // Only its author (or an admin) edits a reply.
    expect((await call(stack, "PUT", replyPath(three.id), as(commenter, { json: markdown("Hijacked.") }))).status).toBe(403);

    expect((await call(stack, "DELETE", replyPath(one.id), as(commenter))).status).toBe(204);
    expect((await call(stack, "GET", replyPath(one.id), as(org.owner))).status).toBe(404);
    expect((await call(stack, "DELETE", replyPath(one.id), as(commenter))).status).toBe(204);
    expect((await call(stack, "GET", comment(thread, posted.id), as(org.owner))).body.replies).toBe(2);

    // On a change request a reply may resolve its comment; on a space `resolved` is not read there.
    await call(stack, "PUT", replyPath(three.id), as(org.owner, { json: { resolved: true } }));
    const after = await call(stack, "GET", comment(thread, posted.id), as(org.owner));
    expect(after.body.status).toBe(kind === "change request" ? "resolved" : "open");
  });

  it("lists the members who commented or replied", async () => {
    const posted = await post(thread, markdown("Opinions?"));
    await call(stack, "POST", comment(thread, posted.id, "/replies"), as(commenter, { json: markdown("Mine.") }));
    await post(thread, markdown("Another."), commenter);
    const { data } = thread.changeRequestId
      ? await org.owner.api.spaces.listCommentersInChangeRequest(spaceId, thread.changeRequestId)
      : await org.owner.api.spaces.listCommentersInSpace(spaceId);
    expect(data.items.map((member) => [member.id, member.role, member.user.displayName])).toEqual([
      [org.owner.userId, "admin", expect.any(String)],
      [commenter.userId, "comment", "Cora Commenter"],
    ]);
    expect(data.count).toBe(2);
  });

  it("lets comment members post and manage their own, admins manage any, readers only read", async () => {
    const reader = await createMember(stack, org, { role: "read" });
    const byOwner = await post(thread, markdown("Owner's."));
    const byCommenter = await post(thread, markdown("Commenter's."), commenter);

    expect((await call(stack, "DELETE", comment(thread, byOwner.id), as(commenter))).status).toBe(403);
    expect((await call(stack, "PUT", comment(thread, byOwner.id), as(commenter, { json: markdown("Changed.") }))).status).toBe(403);
    const readersView = await call(stack, "GET", comment(thread, byCommenter.id), as(reader));
    expect(readersView.body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    expect((await call(stack, "POST", `${thread.base}/comments`, as(reader, { json: markdown("Me too.") }))).status).toBe(403);
    expect((await call(stack, "POST", comment(thread, byOwner.id, "/replies"), as(reader, { json: markdown("Me too.") }))).status).toBe(403);

    expect((await call(stack, "DELETE", comment(thread, byCommenter.id), as(org.owner))).status).toBe(204);
    expect((await call(stack, "DELETE", comment(thread, byOwner.id), as(org.owner))).status).toBe(204);
    expect((await call(stack, "GET", `${thread.base}/comments`, as(org.owner))).body.count).toBe(0);
  });

  it("answers 204 to deletes, also when the comment is already gone, and removes its replies", async () => {
    const posted = await post(thread, markdown("Short-lived."));
    const reply = await call(stack, "POST", comment(thread, posted.id, "/replies"), as(commenter, { json: markdown("Bye.") }));
    const deleted = await call(stack, "DELETE", comment(thread, posted.id), as(org.owner));
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await call(stack, "GET", comment(thread, posted.id), as(org.owner))).status).toBe(404);
    expect((await call(stack, "GET", comment(thread, posted.id, `/replies/${reply.body.id as string}`), as(org.owner))).status).toBe(404);
    expect((await call(stack, "DELETE", comment(thread, posted.id), as(org.owner))).status).toBe(204);
    expect((await call(stack, "DELETE", comment(thread, "00000000-0000-4000-8000-000000000000"), as(org.owner))).status).toBe(204);
  });
});

describe("comments across spaces and organizations", () => {
  it("keeps a space's comments and its change requests' apart, and counts open comments on the change request", async () => {
    const space = await openThread("space");
    const changeRequest = await openThread("change request");
    const onSpace = await post(space, markdown("On the space."));
    const onChangeRequest = await post(changeRequest, markdown("On the change request."));
    expect(ids(await call(stack, "GET", `${space.base}/comments`, as(org.owner)))).toEqual([onSpace.id]);
    expect(ids(await call(stack, "GET", `${changeRequest.base}/comments`, as(org.owner)))).toEqual([onChangeRequest.id]);
    // A comment is only found under the container it belongs to.
    expect((await call(stack, "GET", comment(changeRequest, onSpace.id), as(org.owner))).status).toBe(404);
    expect((await call(stack, "GET", comment(space, onChangeRequest.id), as(org.owner))).status).toBe(404);
    await eventually(async () => (await call(stack, "GET", changeRequest.base, as(org.owner))).body.comments === 1);
  });

  it("answers 404 to another organization on every comment endpoint of both prefixes, changing nothing", async () => {
    const other = await createOrganization(stack);
    for (const kind of ["space", "change request"] as const) {
      const thread = await openThread(kind);
      const posted = await post(thread, markdown("Internal."));
      const reply = await call(stack, "POST", comment(thread, posted.id, "/replies"), as(org.owner, { json: markdown("Also internal.") }));
      const replyPath = comment(thread, posted.id, `/replies/${reply.body.id as string}`);
      const requests: [string, string, unknown?][] = [
        ["GET", `${thread.base}/comments`],
        ["POST", `${thread.base}/comments`, markdown("Intrusion.")],
        ["GET", comment(thread, posted.id)],
        ["PUT", comment(thread, posted.id), { resolved: true, addedReactions: ["👎"] }],
        ["DELETE", comment(thread, posted.id)],
        ["GET", comment(thread, posted.id, "/replies")],
        ["POST", comment(thread, posted.id, "/replies"), markdown("Intrusion.")],
        ["GET", replyPath],
        ["PUT", replyPath, markdown("Changed.")],
        ["DELETE", replyPath],
        ["GET", `${thread.base}/commenters`],
      ];
      for (const [method, path, json] of requests) {
        const response = await call(stack, method, path, as(other.owner, json === undefined ? {} : { json }));
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      }
      const intact = await call(stack, "GET", comment(thread, posted.id), as(org.owner));
      expect(intact.body).toMatchObject({ status: "open", reactions: [], replies: 1 });
    }
  });
});
