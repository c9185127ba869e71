import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeRequest, ChangeRequestReviewStatus } from "../../node_modules/@gitbook/api/dist/client.js";
import { createMember, createOrganizationWithSpace, createOrganization, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, type CallOptions } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Reviews of change requests end to end, through GitBook's client and plain HTTP: reviewers
 * asked and withdrawn, reviews submitted and read, contributors, and the organization's merge
 * rules enforced on merge. Every response is checked against GitBook's OpenAPI.
 */
let stack: TestStack;
let org: TestOrganization;
let spaceId: string;
let editor: TestUser;
let reviewer: TestUser;
let reader: TestUser;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());
beforeEach(async () => {
  ({ org, spaceId } = await createOrganizationWithSpace(stack));
  editor = await createMember(stack, org, { role: "edit", displayName: "Edith Editor" });
  reviewer = await createMember(stack, org, { role: "review", displayName: "Rob Reviewer" });
  reader = await createMember(stack, org, { role: "read", displayName: "Rita Reader" });
});

const as = (user: TestUser, options: CallOptions = {}): CallOptions => ({ token: user.token, ...options });
const crPath = (changeRequestId: string, rest = "") => `/v1/spaces/${spaceId}/change-requests/${changeRequestId}${rest}`;

async function createChangeRequest(author: TestUser = editor): Promise<ChangeRequest> {
  return (await author.api.spaces.createChangeRequest(spaceId, { subject: "Improve the guide" })).data;
}

/** GitBook's client types the status as its enum; the wire value is the string. */
const APPROVED = "approved" as ChangeRequestReviewStatus;

const paragraph = (text: string) => ({
  object: "document",
  nodes: [{ object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }] }],
});

describe("requested reviewers", () => {
  it("asks, lists and withdraws reviewers through GitBook's client", async () => {
    const cr = await createChangeRequest();
    const asked = await editor.api.spaces.requestReviewersForChangeRequest(spaceId, cr.id, {
      users: [reviewer.userId],
      subject: "Ready for review",
      description: paragraph("Please check the guide.") as never,
    });
    expect(asked.status).toBe(200);
    expect(asked.data.users).toEqual([
      expect.objectContaining({ object: "change-request-requested-reviewer", kind: "user", user: expect.objectContaining({ id: reviewer.userId }) }),
    ]);
    expect(asked.data.users![0]!.requestedBy.id).toBe(editor.userId);
    const changed = await reader.api.spaces.getChangeRequestById(spaceId, cr.id);
    expect(changed.data.subject).toBe("Ready for review");
    expect(JSON.stringify(changed.data.description)).toContain("Please check the guide.");

    const filtered = await reader.api.spaces.listChangeRequestsForSpace(spaceId, { requestedReviewer: reviewer.userId });
    expect(filtered.data.items.map((entry) => entry.id)).toEqual([cr.id]);
    expect((await reader.api.spaces.listChangeRequestsForSpace(spaceId, { requestedReviewer: reader.userId })).data.items).toEqual([]);
    const listed = await reader.api.spaces.getRequestedReviewersByChangeRequestId(spaceId, String(cr.number));
    expect(listed.data.items.map((entry) => ("user" in entry ? entry.user.id : ""))).toEqual([reviewer.userId]);

    const removed = await call(stack, "DELETE", crPath(cr.id, `/requested-reviewers/${reviewer.userId}`), as(editor));
    expect(removed.status).toBe(205);
    const again = await call(stack, "DELETE", crPath(cr.id, `/requested-reviewers/${reviewer.userId}`), as(editor));
    expect(again.status).toBe(204);
    expect((await reader.api.spaces.getRequestedReviewersByChangeRequestId(spaceId, cr.id)).data.items).toEqual([]);
  });

  it("refuses readers (403), other organizations (404) and bad input (400 naming the field)", async () => {
    const cr = await createChangeRequest();
    const ask = (user: TestUser, json: unknown) => call(stack, "POST", crPath(cr.id, "/requested-reviewers"), as(user, { json }));
    expect((await ask(reader, { users: [reviewer.userId] })).status).toBe(403);
    const other = await createOrganization(stack);
    expect((await ask(other.owner, { users: [reviewer.userId] })).status).toBe(404);
    expect((await call(stack, "GET", crPath(cr.id, "/requested-reviewers"), { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "DELETE", crPath(cr.id, `/requested-reviewers/${reviewer.userId}`), { token: other.owner.token })).status).toBe(404);

    const missing = await ask(editor, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("users");
    const author = await ask(editor, { users: [editor.userId] });
    expect(author.status).toBe(400);
    expect(author.body.error.message).toContain("author");
    const outsider = await ask(editor, { users: [other.owner.userId] });
    expect(outsider.status).toBe(400);
    expect(outsider.body.error.message).toBe(`users: "${other.owner.userId}" is not a member of the organization`);
  });
});

describe("reviews", () => {
  it("submits reviews with a comment (201 + Location), outdating earlier ones, and reads them back", async () => {
    const cr = await createChangeRequest();
    const first = await reviewer.api.spaces.submitChangeRequestReview(spaceId, cr.id, {
      status: "changes-requested" as ChangeRequestReviewStatus,
      comment: { document: paragraph("Fix the title.") },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get("location")).toBe(first.data.urls.location);
    expect(first.data).toMatchObject({ object: "change-request-review", status: "changes-requested", outdated: false, reviewer: { id: reviewer.userId } });
    expect(first.data.comment?.body).toBeDefined();
    const second = await reviewer.api.spaces.submitChangeRequestReview(spaceId, cr.id, { status: APPROVED, comment: { markdown: "Looks good." } });
    expect(second.data.status).toBe("approved");

    const all = await reader.api.spaces.getReviewsByChangeRequestId(spaceId, cr.id, { format: "markdown" });
    expect(all.data.items.map((review) => [review.id, review.outdated])).toEqual([
      [first.data.id, true],
      [second.data.id, false],
    ]);
    expect(all.data.items[1]!.comment?.body).toEqual({ markdown: "Looks good." });
    const current = await reader.api.spaces.getReviewsByChangeRequestId(spaceId, cr.id, { outdated: false });
    expect(current.data.items.map((review) => review.id)).toEqual([second.data.id]);
    const one = await reader.api.spaces.getChangeRequestReviewById(spaceId, cr.id, first.data.id, { format: "markdown" });
    expect(one.data).toMatchObject({ id: first.data.id, outdated: true, comment: { body: { markdown: "Fix the title." } } });

    const contributors = await reader.api.spaces.getContributorsByChangeRequestId(spaceId, cr.id);
    expect(contributors.data.items.map((entry) => [entry.user.id, entry.actionType, entry.count])).toEqual([
      [reviewer.userId, "comment", 2],
      [editor.userId, "edit", 1],
    ]);
  });

  it("refuses the author's approval and users without the review right (403), other organizations (404), bad input (400)", async () => {
    const cr = await createChangeRequest(reviewer);
    const submit = (user: TestUser, json: unknown) => call(stack, "POST", crPath(cr.id, "/reviews"), as(user, { json }));
    const own = await submit(reviewer, { status: "approved" });
    expect(own.status).toBe(403);
    expect(own.body.error.message).toContain("an author cannot review (approve) their own change request");
    const unasked = await submit(reader, { status: "approved" });
    expect(unasked.status).toBe(403);
    expect(unasked.body.error.message).toContain('"review" permission');
    const other = await createOrganization(stack);
    expect((await submit(other.owner, { status: "approved" })).status).toBe(404);
    expect((await call(stack, "GET", crPath(cr.id, "/reviews"), { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", crPath(cr.id, "/contributors"), { token: other.owner.token })).status).toBe(404);
    const bad = await submit(editor, { status: "maybe" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("status");
    expect((await call(stack, "GET", crPath(cr.id, "/reviews/00000000-0000-4000-8000-000000000000"), as(reader))).status).toBe(404);
  });
});

describe("merge rules", () => {
  it("keeps the organization's rules and refuses a merge that breaks them (409 naming the rule) until approved", async () => {
    const rules = { type: "rules", rules: [{ rule: "require_at_least_one_approved_review" }, { rule: "allow_bypass", users: [org.owner.userId] }] };
    const updated = await org.owner.api.orgs.updateOrganizationById(org.organizationId, { mergeRules: rules as never });
    expect(updated.data.mergeRules).toEqual(rules);
    expect((await reader.api.orgs.getOrganizationById(org.organizationId)).data.mergeRules).toEqual(rules);
    const unsupported = await call(stack, "PATCH", `/v1/orgs/${org.organizationId}`, {
      token: org.owner.token,
      json: { mergeRules: { type: "rules", rules: [{ rule: "custom", expression: "true" }] } },
    });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error.message).toContain("mergeRules.rules[0].rule");

    const cr = await createChangeRequest();
    const refused = await call(stack, "POST", crPath(cr.id, "/merge"), as(reviewer));
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('Merge rule "require_at_least_one_approved_review"');
    expect(refused.body.error.message).toContain("requires an approval");
    await reviewer.api.spaces.submitChangeRequestReview(spaceId, cr.id, { status: APPROVED });
    const merged = await reviewer.api.spaces.mergeChangeRequest(spaceId, cr.id);
    expect(merged.data.result).toBe("merge");

    const bypassed = await createChangeRequest();
    expect((await org.owner.api.spaces.mergeChangeRequest(spaceId, bypassed.id)).status).toBe(200);
  });

  it("keeps a space's own rules, which take the organization's place until the space inherits again", async () => {
    await org.owner.api.orgs.updateOrganizationById(org.organizationId, {
      mergeRules: { type: "rules", rules: [{ rule: "require_at_least_one_review" }] } as never,
    });
    const spaceRules = { type: "rules", rules: [{ rule: "require_specific_reviewers", users: [reviewer.userId] }] };
    const updated = await org.owner.api.spaces.updateSpaceById(spaceId, { mergeRules: spaceRules as never });
    expect(updated.data.mergeRules).toEqual(spaceRules);
    expect((await reader.api.spaces.getSpaceById(spaceId)).data.mergeRules).toEqual(spaceRules);

    const cr = await createChangeRequest();
    const refused = await call(stack, "POST", crPath(cr.id, "/merge"), as(org.owner));
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('Merge rule "require_specific_reviewers"');
    expect(refused.body.error.message).toContain(reviewer.userId);
    await reviewer.api.spaces.submitChangeRequestReview(spaceId, cr.id, { status: APPROVED });
    expect((await org.owner.api.spaces.mergeChangeRequest(spaceId, cr.id)).data.result).toBe("merge");

    expect((await org.owner.api.spaces.updateSpaceById(spaceId, { mergeRules: { type: "none" } as never })).data.mergeRules).toEqual({ type: "none" });
    const free = await createChangeRequest();
    expect((await org.owner.api.spaces.mergeChangeRequest(spaceId, free.id)).data.result).toBe("merge");

    expect((await org.owner.api.spaces.updateSpaceById(spaceId, { mergeRules: { type: "inherit" } as never })).data.mergeRules).toEqual({ type: "inherit" });
    const inherited = await createChangeRequest();
    const refusedByOrganization = await call(stack, "POST", crPath(inherited.id, "/merge"), as(org.owner));
    expect(refusedByOrganization.status).toBe(409);
    expect(refusedByOrganization.body.error.message).toContain('Merge rule "require_at_least_one_review"');
  });

  it("refuses space rules from non-admins (403), other organizations (404) and bad rules (400 naming the field)", async () => {
    const rules = { mergeRules: { type: "none" } };
    expect((await call(stack, "PATCH", `/v1/spaces/${spaceId}`, as(editor, { json: rules }))).status).toBe(403);
    const other = await createOrganization(stack);
    expect((await call(stack, "PATCH", `/v1/spaces/${spaceId}`, { token: other.owner.token, json: rules })).status).toBe(404);
    const badType = await call(stack, "PATCH", `/v1/spaces/${spaceId}`, as(org.owner, { json: { mergeRules: { type: "sometimes" } } }));
    expect(badType.status).toBe(400);
    expect(badType.body.error.message).toContain("mergeRules.type");
    const noUsers = await call(
      stack,
      "PATCH",
      `/v1/spaces/${spaceId}`,
      as(org.owner, { json: { mergeRules: { type: "rules", rules: [{ rule: "allow_bypass" }] } } }),
    );
    expect(noUsers.status).toBe(400);
    expect(noUsers.body.error.message).toContain("mergeRules.rules[0].users");
    const shapeless = await call(stack, "PATCH", `/v1/spaces/${spaceId}`, as(org.owner, { json: { mergeRules: { rules: "all" } } }));
    expect(shapeless.status).toBe(400);
    expect(shapeless.body.error.message).toContain("mergeRules.");
    expect((await reader.api.spaces.getSpaceById(spaceId)).data.mergeRules).toEqual({ type: "inherit" });
  });
});
