import type { JsonDocument } from "@imprint/document";
import { useState } from "preact/hooks";
import { all, api, ApiError } from "../api";
import { Diff, lineDiff, type DiffLine } from "../components/diff";
import { Breadcrumbs } from "../components/layout";
import { type ChangeRequest, pageHref, type Space, spacePath, type User, userName, when } from "../components/space";
import { Loaded, useChanges, useLoad, useTitle } from "../components/status";
import type { PageProps } from "../navigation";

interface PageChange {
  type: string;
  page?: { id: string; title: string; path?: string; type: string };
  file?: { id: string; name: string };
  attributes?: Record<string, unknown>;
}
interface Comment {
  id: string;
  postedBy: User;
  postedAt: string;
  body: { markdown?: string };
  status: "open" | "resolved";
  replies: number;
}
interface Reply {
  id: string;
  postedBy: User;
  postedAt: string;
  body: { markdown?: string };
}
interface RequestedReviewer {
  user: User;
  requestedBy: User;
}
interface Review {
  id: string;
  reviewer: User;
  status: "approved" | "changes-requested";
  outdated: boolean;
  createdAt: string;
}
interface Member {
  user: User;
}

const CHANGE_WORDS: Record<string, string> = {
  page_created: "Added",
  page_deleted: "Deleted",
  page_edited: "Edited",
  page_moved: "Moved",
  file_created: "File added",
  file_deleted: "File deleted",
  file_edited: "File changed",
};

/** A document's text, paragraph by paragraph (a change request's description, to edit as text). */
function documentText(document: JsonDocument | undefined): string {
  const text = (node: unknown): string => {
    if (!node || typeof node !== "object") return "";
    const value = node as { object?: string; leaves?: { text: string }[]; nodes?: unknown[] };
    if (value.object === "text") return (value.leaves ?? []).map((leaf) => leaf.text).join("");
    const inner = (value.nodes ?? []).map(text);
    return value.object === "block" && inner.every((item) => !item.includes("\n\n")) ? inner.join("") : inner.join("\n\n");
  };
  return (document?.nodes ?? []).map(text).join("\n\n");
}

/** A page's markdown at a revision, "" when the page is not there (added or deleted on the other side). */
async function markdownAt(space: string, revision: string, page: string): Promise<string> {
  try {
    const answer = await api<{ markdown?: string }>(
      "GET",
      `/v1/spaces/${encodeURIComponent(space)}/revisions/${encodeURIComponent(revision)}/page/${encodeURIComponent(page)}?format=markdown`,
    );
    return answer.markdown ?? "";
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return "";
    throw error;
  }
}

/**
 * A change request: its subject and description (editable), status, what it changes (a line
 * diff of each page's markdown against the change request's base), reviewers and reviews,
 * comments and replies, and merge (the API's refusal shown as it is: the merge rule broken, the
 * conflicting pages) or update from main.
 */
export default function ChangeRequestPage({ params, session }: PageProps) {
  const org = params.org!;
  const spaceId = params.space!;
  const number = params.changeRequest!;
  const crPath = `/v1/spaces/${encodeURIComponent(spaceId)}/change-requests/${encodeURIComponent(number)}`;
  const state = useLoad(async () => {
    const [space, changeRequest, changes, reviewers, reviews, comments, members] = await Promise.all([
      api<Space>("GET", `/v1/spaces/${encodeURIComponent(spaceId)}`),
      api<ChangeRequest>("GET", crPath),
      api<{ changes: PageChange[] }>("GET", `${crPath}/changes?limit=1000`),
      all<RequestedReviewer>(`${crPath}/requested-reviewers`),
      all<Review>(`${crPath}/reviews`),
      all<Comment>(`${crPath}/comments?format=markdown&order=asc`),
      all<Member>(`/v1/orgs/${encodeURIComponent(org)}/members`).catch(() => [] as Member[]),
    ]);
    const base = changeRequest.revisionMergedAncestor ?? changeRequest.revisionInitial;
    const diffs = await Promise.all(
      changes.changes.map(async (change): Promise<DiffLine[] | null> => {
        if (!change.page || change.page.type !== "document" || change.type === "page_moved") return null;
        const [before, after] = await Promise.all([markdownAt(spaceId, base, change.page.id), markdownAt(spaceId, changeRequest.revision, change.page.id)]);
        return lineDiff(before, after);
      }),
    );
    const replies = await Promise.all(
      comments.map((comment) =>
        comment.replies > 0 ? all<Reply>(`${crPath}/comments/${encodeURIComponent(comment.id)}/replies?format=markdown`) : Promise.resolve([] as Reply[]),
      ),
    );
    return { space, changeRequest, changes: changes.changes, diffs, reviewers, reviews, comments, replies, members };
  }, crPath);
  const data = state.data;
  useTitle(data ? `#${data.changeRequest.number} ${data.changeRequest.subject}` : "Change request");
  const { change: act, busy, status } = useChanges(() => state.reload());
  const [subject, setSubject] = useState<string | null>(null);
  const [description, setDescription] = useState<string | null>(null);
  const [reviewer, setReviewer] = useState("");
  const [reviewStatus, setReviewStatus] = useState<"approved" | "changes-requested">("approved");
  const [reviewComment, setReviewComment] = useState("");
  const [comment, setComment] = useState("");
  const [replyTo, setReplyTo] = useState<Record<string, string>>({});

  const base = spacePath(org, spaceId);
  return (
    <Loaded state={state}>
      {({ space, changeRequest, changes, diffs, reviewers, reviews, comments, replies, members }) => {
        const open = changeRequest.status === "open" || changeRequest.status === "draft";
        const scope = { kind: "change" as const, changeRequest: String(changeRequest.number) };
        const candidates = members.filter(
          (member) => member.user.id !== changeRequest.createdBy?.id && !reviewers.some((item) => item.user.id === member.user.id),
        );
        return (
          <section aria-labelledby="cr-title">
            <Breadcrumbs
              items={[{ label: space.title, href: `${base}/` }, { label: "Change requests", href: `${base}/~/changes` }, { label: `#${changeRequest.number}` }]}
            />
            <h1 id="cr-title">
              #{changeRequest.number} {changeRequest.subject}
            </h1>
            <p>
              <strong class="status-badge">{changeRequest.status}</strong> · opened by {userName(changeRequest.createdBy)} on {when(changeRequest.createdAt)}
              {changeRequest.outdated ? " · the space changed since: update it from main before merging if the rules ask for it" : ""}
            </p>
            <div class="space-toolbar">
              <a href={pageHref(org, spaceId, scope, "")}>View its pages</a>
              {open ? <a href={`${base}/~/edit/${changeRequest.number}/`}>Edit its pages</a> : null}
              {open ? (
                <>
                  <button type="button" disabled={busy} onClick={() => void act(() => api("POST", `${crPath}/merge`), "Merged into the space.")}>
                    Merge
                  </button>
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => void act(() => api("POST", `${crPath}/update`), "Updated from the space's main content.")}
                  >
                    Update from main
                  </button>
                  {changeRequest.status === "draft" ? (
                    <button type="button" disabled={busy} onClick={() => void act(() => api("PATCH", crPath, { status: "open" }), "Ready for review.")}>
                      Ready for review
                    </button>
                  ) : null}
                  <button type="button" disabled={busy} onClick={() => void act(() => api("PATCH", crPath, { status: "archived" }), "Archived.")}>
                    Archive
                  </button>
                </>
              ) : null}
            </div>
            {status}

            <h2>Subject and description</h2>
            <form
              onSubmit={(event) => {
                event.preventDefault();
                void act(
                  () =>
                    api("PATCH", crPath, {
                      subject: subject ?? changeRequest.subject,
                      description: { markdown: description ?? documentText(changeRequest.description) },
                    }),
                  "Saved.",
                ).then((saved) => {
                  if (!saved) return;
                  setSubject(null);
                  setDescription(null);
                });
              }}
            >
              <label for="cr-subject">Subject</label>
              <input
                id="cr-subject"
                maxLength={100}
                value={subject ?? changeRequest.subject}
                disabled={!open}
                onInput={(event) => setSubject((event.target as HTMLInputElement).value)}
              />
              <label for="cr-description">Description</label>
              <textarea
                id="cr-description"
                rows={4}
                value={description ?? documentText(changeRequest.description)}
                disabled={!open}
                onInput={(event) => setDescription((event.target as HTMLTextAreaElement).value)}
              />
              {open ? (
                <button type="submit" disabled={busy}>
                  Save subject and description
                </button>
              ) : null}
            </form>

            <h2>Changes</h2>
            {changes.length === 0 ? (
              <p class="muted">No changes yet.</p>
            ) : (
              changes.map((change, index) => {
                const name = change.page?.title ?? change.file?.name ?? "";
                return (
                  <section key={index} class="change" aria-label={`${CHANGE_WORDS[change.type] ?? change.type}: ${name}`}>
                    <h3>
                      {CHANGE_WORDS[change.type] ?? change.type}:{" "}
                      {change.page && change.type !== "page_deleted" ? <a href={pageHref(org, spaceId, scope, change.page.path ?? "")}>{name}</a> : name}
                    </h3>
                    {diffs[index] ? <Diff lines={diffs[index]} label={`Changes to ${name}`} /> : null}
                  </section>
                );
              })
            )}

            <h2>Reviewers</h2>
            {reviewers.length === 0 ? (
              <p class="muted">Nobody is asked to review.</p>
            ) : (
              <ul>
                {reviewers.map((item) => (
                  <li key={item.user.id}>
                    {userName(item.user)} (asked by {userName(item.requestedBy)}){" "}
                    {open ? (
                      <button
                        type="button"
                        disabled={busy}
                        aria-label={`Remove ${userName(item.user)} from the reviewers`}
                        onClick={() => void act(() => api("DELETE", `${crPath}/requested-reviewers/${encodeURIComponent(item.user.id)}`), "Reviewer removed.")}
                      >
                        Remove
                      </button>
                    ) : null}
                  </li>
                ))}
              </ul>
            )}
            {open && candidates.length > 0 ? (
              <form
                class="space-toolbar"
                onSubmit={(event) => {
                  event.preventDefault();
                  if (reviewer) void act(() => api("POST", `${crPath}/requested-reviewers`, { users: [reviewer] }), "Review requested.");
                }}
              >
                <label for="cr-reviewer">Reviewer</label>
                <select id="cr-reviewer" value={reviewer} required onChange={(event) => setReviewer((event.target as HTMLSelectElement).value)}>
                  <option value="">Choose a member</option>
                  {candidates.map((member) => (
                    <option key={member.user.id} value={member.user.id}>
                      {userName(member.user)}
                    </option>
                  ))}
                </select>
                <button type="submit" disabled={busy}>
                  Request review
                </button>
              </form>
            ) : null}

            <h2>Reviews</h2>
            {reviews.length === 0 ? (
              <p class="muted">No reviews yet.</p>
            ) : (
              <ul>
                {reviews.map((review) => (
                  <li key={review.id}>
                    {userName(review.reviewer)}: {review.status === "approved" ? "approved" : "requested changes"} on {when(review.createdAt)}
                    {review.outdated ? " (outdated: the change request changed since)" : ""}
                  </li>
                ))}
              </ul>
            )}
            {open && session && changeRequest.createdBy?.id !== session.user.id ? (
              <form
                onSubmit={(event) => {
                  event.preventDefault();
                  void act(
                    () => api("POST", `${crPath}/reviews`, { status: reviewStatus, ...(reviewComment ? { comment: { markdown: reviewComment } } : {}) }),
                    reviewStatus === "approved" ? "Approved." : "Changes requested.",
                  ).then((sent) => sent && setReviewComment(""));
                }}
              >
                <fieldset>
                  <legend>Your review</legend>
                  <label>
                    <input type="radio" name="review" checked={reviewStatus === "approved"} onChange={() => setReviewStatus("approved")} /> Approve
                  </label>
                  <label>
                    <input type="radio" name="review" checked={reviewStatus === "changes-requested"} onChange={() => setReviewStatus("changes-requested")} />{" "}
                    Request changes
                  </label>
                  <label for="review-comment">Comment (optional)</label>
                  <textarea
                    id="review-comment"
                    rows={2}
                    value={reviewComment}
                    onInput={(event) => setReviewComment((event.target as HTMLTextAreaElement).value)}
                  />
                  <button type="submit" disabled={busy}>
                    Submit review
                  </button>
                </fieldset>
              </form>
            ) : null}

            <h2>Comments</h2>
            {comments.length === 0 ? <p class="muted">No comments yet.</p> : null}
            {comments.map((item, index) => (
              <article key={item.id} class="thread" aria-label={`Comment by ${userName(item.postedBy)}`}>
                <p>
                  <strong>{userName(item.postedBy)}</strong> · {when(item.postedAt)}
                  {item.status === "resolved" ? " · resolved" : ""}
                </p>
                <p class="comment-body">{item.body.markdown}</p>
                <div class="replies">
                  {replies[index]!.map((reply) => (
                    <div key={reply.id}>
                      <p>
                        <strong>{userName(reply.postedBy)}</strong> · {when(reply.postedAt)}
                      </p>
                      <p class="comment-body">{reply.body.markdown}</p>
                    </div>
                  ))}
                </div>
                <form
                  class="space-toolbar"
                  onSubmit={(event) => {
                    event.preventDefault();
                    void act(
                      () => api("POST", `${crPath}/comments/${encodeURIComponent(item.id)}/replies`, { body: { markdown: replyTo[item.id] ?? "" } }),
                      "Reply posted.",
                    ).then((sent) => sent && setReplyTo({ ...replyTo, [item.id]: "" }));
                  }}
                >
                  <label for={`reply-${item.id}`}>Reply</label>
                  <input
                    id={`reply-${item.id}`}
                    required
                    value={replyTo[item.id] ?? ""}
                    onInput={(event) => setReplyTo({ ...replyTo, [item.id]: (event.target as HTMLInputElement).value })}
                  />
                  <button type="submit" disabled={busy}>
                    Post reply
                  </button>
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() =>
                      void act(
                        () => api("PUT", `${crPath}/comments/${encodeURIComponent(item.id)}`, { resolved: item.status !== "resolved" }),
                        item.status === "resolved" ? "Comment reopened." : "Comment resolved.",
                      )
                    }
                  >
                    {item.status === "resolved" ? "Reopen" : "Resolve"}
                  </button>
                </form>
              </article>
            ))}
            <form
              onSubmit={(event) => {
                event.preventDefault();
                void act(() => api("POST", `${crPath}/comments`, { body: { markdown: comment } }), "Comment posted.").then((sent) => sent && setComment(""));
              }}
            >
              <label for="new-comment">New comment</label>
              <textarea id="new-comment" rows={3} required value={comment} onInput={(event) => setComment((event.target as HTMLTextAreaElement).value)} />
              <button type="submit" disabled={busy}>
                Post comment
              </button>
            </form>
          </section>
        );
      }}
    </Loaded>
  );
}
