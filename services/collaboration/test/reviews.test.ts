import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeRequestStatus } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentFormat } from "@imprint/proto/collaboration/v1/comments";
import { ContributionKind, ReviewStatus, type RequestReviewersRequest } from "@imprint/proto/collaboration/v1/reviews";
import { UpdateSpaceRequest, type SpaceMergeRules } from "@imprint/proto/content/v1/spaces";
import { UpdateOrganizationRequest, type MergeRules } from "@imprint/proto/identity/v1/organizations";
import {
  createChangeRequest,
  createMember,
  createOrganization,
  createPage,
  createSpace,
  failure,
  readEvents,
  type TestOrganization,
  type TestUser,
} from "@imprint/runtime/testing";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";

/**
 * Reviews of change requests through collaboration's gRPC API: who may ask and review, what a
 * review records, and the organization's merge rules checked before a merge.
 */
let harness: CollaborationHarness;
let org: TestOrganization;
let editor: TestUser;
let reviewer: TestUser;
let secondReviewer: TestUser;
let reader: TestUser;

beforeAll(async () => {
  harness = await startCollaborationHarness();
  org = await createOrganization(harness);
  editor = await createMember(harness, org.organizationId, { role: "edit", displayName: "Edith Editor" });
  reviewer = await createMember(harness, org.organizationId, { role: "review", displayName: "Rob Reviewer" });
  secondReviewer = await createMember(harness, org.organizationId, { role: "review", displayName: "Rhea Reviewer" });
  reader = await createMember(harness, org.organizationId, { role: "read", displayName: "Rita Reader" });
});
afterAll(() => harness?.stop());

/** A space with one page and a change request of `author` on it. */
async function changeRequestOf(author: TestUser = editor): Promise<{ spaceId: string; changeRequestId: string }> {
  const space = await createSpace(harness, org);
  await createPage(harness, org.owner.caller, { spaceId: space.id }, { title: "Guide", markdown: "# Guide\n" });
  const changeRequest = await createChangeRequest(harness, author.caller, space.id, { subject: "Improve the guide" });
  return { spaceId: space.id, changeRequestId: changeRequest.id };
}

const ask = (user: TestUser, target: { spaceId: string; changeRequestId: string }, userIds: string[], extra: Partial<RequestReviewersRequest> = {}) =>
  harness.reviews.requestReviewers({
    caller: user.caller,
    ...target,
    userIds,
    setSubject: false,
    subject: "",
    setDescription: false,
    description: "",
    descriptionDocumentJson: "",
    ...extra,
  });

const review = (user: TestUser, target: { spaceId: string; changeRequestId: string }, status: ReviewStatus, commentMarkdown = "") =>
  harness.reviews
    .submitReview({ caller: user.caller, ...target, status, commentMarkdown, commentDocumentJson: "", format: CommentFormat.COMMENT_FORMAT_MARKDOWN })
    .then((answer) => answer.review!);

const merge = (user: TestUser, target: { spaceId: string; changeRequestId: string }) =>
  harness.changeRequests.mergeChangeRequest({ caller: user.caller, ...target });

const setMergeRules = (organization: TestOrganization, mergeRules: MergeRules) =>
  harness.identity.organizations.updateOrganization(
    UpdateOrganizationRequest.fromPartial({
      caller: organization.owner.caller,
      organizationId: organization.organizationId,
      updateMask: ["merge_rules"],
      mergeRules,
    }),
  );

const setSpaceMergeRules = (user: TestUser, spaceId: string, mergeRules: SpaceMergeRules) =>
  harness.spaces.updateSpace(UpdateSpaceRequest.fromPartial({ caller: user.caller, spaceId, updateMask: ["merge_rules"], mergeRules }));

describe("requested reviewers", () => {
  it("lets editors ask members, lists them in order, and withdraws a request once", async () => {
    const target = await changeRequestOf();
    const asked = await ask(editor, target, [reviewer.userId, secondReviewer.userId, reviewer.userId]);
    expect(asked.reviewers.map((entry) => [entry.user?.displayName, entry.requestedBy?.displayName])).toEqual([
      ["Rob Reviewer", "Edith Editor"],
      ["Rhea Reviewer", "Edith Editor"],
    ]);
    expect(asked.reviewers[0]!.revisionId).not.toBe("");
    const listed = await harness.reviews.listRequestedReviewers({ caller: reader.caller, ...target, page: undefined });
    // Asked at once, they are listed by id.
    expect(listed.reviewers.map((entry) => entry.user?.id)).toEqual([reviewer.userId, secondReviewer.userId].sort());
    expect(listed.page?.totalCount).toBe(2);

    expect((await harness.reviews.removeRequestedReviewer({ caller: editor.caller, ...target, userId: reviewer.userId })).removed).toBe(true);
    expect((await harness.reviews.removeRequestedReviewer({ caller: editor.caller, ...target, userId: reviewer.userId })).removed).toBe(false);
    const after = await harness.reviews.listRequestedReviewers({ caller: reader.caller, ...target, page: undefined });
    expect(after.reviewers.map((entry) => entry.user?.id)).toEqual([secondReviewer.userId]);

    const events = await readEvents("collaboration", { occurredSince: new Date(0), payload: { changeRequestId: target.changeRequestId } });
    expect(events.map((event) => event.type)).toEqual(["change_request.created", "change_request.reviewers_requested", "change_request.reviewer_removed"]);
    expect(events[1]!.payload).toMatchObject({ userIds: [reviewer.userId, secondReviewer.userId] });
  });

  it("changes the subject and description with the request when asked to", async () => {
    const target = await changeRequestOf();
    await ask(editor, target, [reviewer.userId], {
      setSubject: true,
      subject: "Ready for review",
      setDescription: true,
      description: "Please look at the guide.",
    });
    const { changeRequest } = await harness.changeRequests.getChangeRequest({ caller: reader.caller, ...target });
    expect(changeRequest).toMatchObject({ subject: "Ready for review", description: "Please look at the guide." });
  });

  it("refuses readers, the author, outsiders of the organization, and other organizations' callers", async () => {
    const target = await changeRequestOf();
    expect(await failure(ask(reader, target, [reviewer.userId]))).toMatchObject({ code: "permission_denied", message: expect.stringContaining('"edit"') });
    expect(await failure(ask(editor, target, [editor.userId]))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("author") });
    const other = await createOrganization(harness);
    expect(await failure(ask(editor, target, [other.owner.userId]))).toMatchObject({
      code: "invalid_argument",
      message: `users: "${other.owner.userId}" is not a member of the organization`,
    });
    expect(await failure(ask(editor, target, []))).toMatchObject({ code: "invalid_argument", message: "users: must name at least one user" });
    expect(await failure(ask(other.owner, target, [reviewer.userId]))).toMatchObject({ code: "not_found" });
    expect(await failure(harness.reviews.listRequestedReviewers({ caller: other.owner.caller, ...target, page: undefined }))).toMatchObject({
      code: "not_found",
    });
  });
});

describe("reviews", () => {
  it("records a review with its comment in the change request's thread, outdating the reviewer's earlier one", async () => {
    const target = await changeRequestOf();
    await ask(editor, target, [reviewer.userId]);
    const first = await review(reviewer, target, ReviewStatus.REVIEW_STATUS_CHANGES_REQUESTED, "Please fix the title.");
    expect(first).toMatchObject({
      status: ReviewStatus.REVIEW_STATUS_CHANGES_REQUESTED,
      outdated: false,
      reviewer: { id: reviewer.userId },
      requestedBy: { id: editor.userId },
      comment: { body: { markdown: "Please fix the title." }, changeRequestId: target.changeRequestId },
    });
    expect(first.revisionId).not.toBe("");
    const second = await review(reviewer, target, ReviewStatus.REVIEW_STATUS_APPROVED);
    expect(second.comment).toBeUndefined();

    const all = await harness.reviews.listReviews({ caller: reader.caller, ...target, format: CommentFormat.COMMENT_FORMAT_MARKDOWN, page: undefined });
    expect(all.reviews.map((entry) => [entry.id, entry.outdated])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);
    const current = await harness.reviews.listReviews({ caller: reader.caller, ...target, outdated: false, format: 0, page: undefined });
    expect(current.reviews.map((entry) => entry.id)).toEqual([second.id]);
    const got = await harness.reviews.getReview({ caller: reader.caller, ...target, reviewId: first.id, format: CommentFormat.COMMENT_FORMAT_MARKDOWN });
    expect(got.review).toMatchObject({ id: first.id, outdated: true, comment: { body: { markdown: "Please fix the title." } } });
    const { comments } = await harness.comments.listComments({
      caller: reader.caller,
      scope: target,
      order: 0,
      status: 0,
      targetPageId: "",
      authorUserIds: [],
      format: CommentFormat.COMMENT_FORMAT_MARKDOWN,
      page: undefined,
    });
    expect(comments.map((comment) => comment.body?.markdown)).toEqual(["Please fix the title."]);

    const events = await readEvents("collaboration", { occurredSince: new Date(0), payload: { changeRequestId: target.changeRequestId } });
    const submitted = events.filter((event) => event.type === "change_request.review_submitted");
    expect(submitted.map((event) => event.payload)).toMatchObject([
      { reviewId: first.id, reviewerId: reviewer.userId, status: "changes-requested", commentId: first.comment!.id },
      { reviewId: second.id, status: "approved" },
    ]);
  });

  it("refuses the author's own approval, and reviews by users without the review right who were not asked", async () => {
    const target = await changeRequestOf(reviewer);
    expect(await failure(review(reviewer, target, ReviewStatus.REVIEW_STATUS_APPROVED))).toMatchObject({
      code: "permission_denied",
      message: expect.stringContaining("an author cannot review (approve) their own change request"),
    });
    expect(await failure(review(reader, target, ReviewStatus.REVIEW_STATUS_APPROVED))).toMatchObject({
      code: "permission_denied",
      message: expect.stringContaining('"review" permission'),
    });
    // GitBook's rule: a requested reviewer may review without the review right.
    await ask(editor, target, [reader.userId]);
    expect(await review(reader, target, ReviewStatus.REVIEW_STATUS_APPROVED)).toMatchObject({ reviewer: { id: reader.userId } });
    expect(await failure(review(secondReviewer, target, ReviewStatus.REVIEW_STATUS_UNSPECIFIED))).toMatchObject({
      code: "invalid_argument",
      message: "status: must be approved or changes-requested",
    });
  });

  it("answers not_found for another change request's review and for other organizations", async () => {
    const target = await changeRequestOf();
    const elsewhere = await changeRequestOf();
    const submitted = await review(reviewer, elsewhere, ReviewStatus.REVIEW_STATUS_APPROVED);
    expect(await failure(harness.reviews.getReview({ caller: reader.caller, ...target, reviewId: submitted.id, format: 0 }))).toMatchObject({
      code: "not_found",
    });
    const other = await createOrganization(harness);
    expect(await failure(review(other.owner, target, ReviewStatus.REVIEW_STATUS_APPROVED))).toMatchObject({ code: "not_found" });
    expect(await failure(harness.reviews.listReviews({ caller: other.owner.caller, ...target, format: 0, page: undefined }))).toMatchObject({
      code: "not_found",
    });
  });

  it("lists contributors: editors once, commenters with their count", async () => {
    const target = await changeRequestOf();
    await review(reviewer, target, ReviewStatus.REVIEW_STATUS_CHANGES_REQUESTED, "One");
    await review(reviewer, target, ReviewStatus.REVIEW_STATUS_CHANGES_REQUESTED, "Two");
    const { contributors } = await harness.reviews.listContributors({ caller: reader.caller, ...target });
    expect(contributors.map((entry) => [entry.user?.id, entry.kind, entry.count])).toEqual([
      [reviewer.userId, ContributionKind.CONTRIBUTION_KIND_COMMENT, 2],
      [editor.userId, ContributionKind.CONTRIBUTION_KIND_EDIT, 1],
    ]);
  });
});

describe("merge rules", () => {
  it("blocks a merge until the rules pass, naming the rule; bypass users merge anyway", async () => {
    const ruled = await createOrganization(harness);
    const author = await createMember(harness, ruled.organizationId, { role: "edit" });
    const approver = await createMember(harness, ruled.organizationId, { role: "review" });
    const merger = await createMember(harness, ruled.organizationId, { role: "review" });
    await setMergeRules(ruled, {
      type: "rules",
      rules: [
        { rule: "require_at_least_one_approved_review", userIds: [] },
        { rule: "allow_bypass", userIds: [ruled.owner.userId] },
      ],
    });
    const space = await createSpace(harness, ruled);
    const target = { spaceId: space.id, changeRequestId: (await createChangeRequest(harness, author.caller, space.id)).id };

    expect(await failure(merge(merger, target))).toMatchObject({
      code: "conflict",
      message: 'Merge rule "require_at_least_one_approved_review": the change request requires an approval before it can be merged',
    });
    await review(approver, target, ReviewStatus.REVIEW_STATUS_CHANGES_REQUESTED);
    expect(await failure(merge(merger, target))).toMatchObject({ code: "conflict", message: expect.stringContaining("requires an approval") });
    await review(approver, target, ReviewStatus.REVIEW_STATUS_APPROVED);
    const merged = await merge(merger, target);
    expect(merged.changeRequest?.status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED);

    const bypassed = { spaceId: space.id, changeRequestId: (await createChangeRequest(harness, author.caller, space.id)).id };
    expect((await merge(ruled.owner, bypassed)).changeRequest?.status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED);
  });

  it("requires each specific reviewer's approval, and a new request outdates their approval", async () => {
    const ruled = await createOrganization(harness);
    const author = await createMember(harness, ruled.organizationId, { role: "edit" });
    const lead = await createMember(harness, ruled.organizationId, { role: "review" });
    await setMergeRules(ruled, { type: "rules", rules: [{ rule: "require_specific_reviewers", userIds: [lead.userId] }] });
    const space = await createSpace(harness, ruled);
    const target = { spaceId: space.id, changeRequestId: (await createChangeRequest(harness, author.caller, space.id)).id };
    await review(lead, target, ReviewStatus.REVIEW_STATUS_APPROVED);
    await ask(author, target, [lead.userId]);
    expect(await failure(merge(ruled.owner, target))).toMatchObject({
      code: "conflict",
      message: expect.stringContaining(
        `Merge rule "require_specific_reviewers": the change request requires an approval from each of its reviewers (missing: ${lead.userId})`,
      ),
    });
    await review(lead, target, ReviewStatus.REVIEW_STATUS_APPROVED);
    expect((await merge(ruled.owner, target)).changeRequest?.status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED);
  });

  it("checks the author and the description rules", async () => {
    const ruled = await createOrganization(harness);
    const author = await createMember(harness, ruled.organizationId, { role: "review" });
    await setMergeRules(ruled, {
      type: "rules",
      rules: [
        { rule: "require_change_request_description", userIds: [] },
        { rule: "require_author_to_merge", userIds: [] },
      ],
    });
    const space = await createSpace(harness, ruled);
    const target = { spaceId: space.id, changeRequestId: (await createChangeRequest(harness, author.caller, space.id)).id };
    expect(await failure(merge(author, target))).toMatchObject({ code: "conflict", message: expect.stringContaining("requires a description") });
    await ask(author, target, [ruled.owner.userId], { setDescription: true, description: "Why this change." });
    expect(await failure(merge(ruled.owner, target))).toMatchObject({ code: "conflict", message: expect.stringContaining("requires its author to merge it") });
    expect((await merge(author, target)).changeRequest?.status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED);
  });

  it("follows a space's own rules in place of the organization's, and the organization's again once it inherits", async () => {
    const ruled = await createOrganization(harness);
    const author = await createMember(harness, ruled.organizationId, { role: "edit" });
    const approver = await createMember(harness, ruled.organizationId, { role: "review" });
    await setMergeRules(ruled, { type: "rules", rules: [{ rule: "require_at_least_one_approved_review", userIds: [] }] });
    const strict = await createSpace(harness, ruled);
    const free = await createSpace(harness, ruled);
    await setSpaceMergeRules(ruled.owner, strict.id, { type: "rules", rules: [{ rule: "require_specific_reviewers", userIds: [approver.userId] }] });
    await setSpaceMergeRules(ruled.owner, free.id, { type: "none", rules: [] });

    const unreviewed = { spaceId: free.id, changeRequestId: (await createChangeRequest(harness, author.caller, free.id)).id };
    expect((await merge(ruled.owner, unreviewed)).changeRequest?.status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED);

    const target = { spaceId: strict.id, changeRequestId: (await createChangeRequest(harness, author.caller, strict.id)).id };
    expect(await failure(merge(ruled.owner, target))).toMatchObject({
      code: "conflict",
      message: `Merge rule "require_specific_reviewers": the change request requires an approval from each of its reviewers (missing: ${approver.userId}) before it can be merged`,
    });
    await review(approver, target, ReviewStatus.REVIEW_STATUS_APPROVED);
    expect((await merge(ruled.owner, target)).changeRequest?.status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED);

    await setSpaceMergeRules(ruled.owner, free.id, { type: "inherit", rules: [] });
    const inherited = { spaceId: free.id, changeRequestId: (await createChangeRequest(harness, author.caller, free.id)).id };
    expect(await failure(merge(ruled.owner, inherited))).toMatchObject({ code: "conflict", message: expect.stringContaining("requires an approval before") });
  });

  it("refuses space rules content cannot keep, naming the field", async () => {
    const space = await createSpace(harness, org);
    expect(await failure(setSpaceMergeRules(org.owner, space.id, { type: "sometimes", rules: [] }))).toMatchObject({
      code: "invalid_argument",
      message: 'mergeRules.type: must be "inherit", "none" or "rules"',
    });
    expect(await failure(setSpaceMergeRules(org.owner, space.id, { type: "rules", rules: [{ rule: "custom", userIds: [] }] }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("mergeRules.rules[0].rule"),
    });
    expect(await failure(setSpaceMergeRules(org.owner, space.id, { type: "rules", rules: [{ rule: "allow_bypass", userIds: [] }] }))).toMatchObject({
      code: "invalid_argument",
      message: "mergeRules.rules[0].users: must name 1 to 50 users",
    });
    expect(await failure(setSpaceMergeRules(editor, space.id, { type: "none", rules: [] }))).toMatchObject({ code: "permission_denied" });
  });
});
