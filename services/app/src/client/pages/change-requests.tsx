import { all, api } from "../api";
import { Breadcrumbs } from "../components/layout";
import { type ChangeRequest, type Space, spacePath, userName, when } from "../components/space";
import { Loaded, useLoad, useTitle } from "../components/status";
import { navigate, type PageProps } from "../navigation";

const STATUSES = ["open", "draft", "merged", "archived"] as const;

/** A space's change requests of one status (`?status=`, open by default), newest first. */
export default function ChangeRequestsPage({ params, query }: PageProps) {
  const org = params.org!;
  const spaceId = params.space!;
  const wanted = query.get("status");
  const status = STATUSES.find((item) => item === wanted) ?? "open";
  const base = spacePath(org, spaceId);
  const state = useLoad(async () => {
    const [space, changeRequests] = await Promise.all([
      api<Space>("GET", `/v1/spaces/${encodeURIComponent(spaceId)}`),
      all<ChangeRequest>(`/v1/spaces/${encodeURIComponent(spaceId)}/change-requests?status=${status}`),
    ]);
    return { space, changeRequests };
  }, `${spaceId}|${status}`);
  useTitle(state.data ? `Change requests · ${state.data.space.title}` : "Change requests");
  return (
    <Loaded state={state}>
      {({ space, changeRequests }) => (
        <section aria-labelledby="crs-title">
          <Breadcrumbs items={[{ label: space.title, href: `${base}/` }, { label: "Change requests" }]} />
          <h1 id="crs-title">Change requests</h1>
          <div class="space-toolbar">
            <label for="cr-status">Status</label>
            <select id="cr-status" value={status} onChange={(event) => navigate(`${base}/~/changes?status=${(event.target as HTMLSelectElement).value}`)}>
              {STATUSES.map((item) => (
                <option key={item} value={item}>
                  {item}
                </option>
              ))}
            </select>
          </div>
          {changeRequests.length === 0 ? (
            <p class="muted">No {status} change requests.</p>
          ) : (
            <ul class="cards">
              {changeRequests.map((changeRequest) => (
                <li key={changeRequest.id}>
                  <a href={`${base}/~/changes/${changeRequest.number}/`}>
                    #{changeRequest.number} {changeRequest.subject || "(no subject)"}
                  </a>
                  <p class="muted">
                    {changeRequest.status} · by {userName(changeRequest.createdBy)} · updated {when(changeRequest.updatedAt)} · {changeRequest.comments}{" "}
                    comments
                  </p>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </Loaded>
  );
}
