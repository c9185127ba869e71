import { parseUpdateMask } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateSource } from "../../domain/site-redirect.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import {
  changeRedirect,
  findSiteRedirect,
  requireFreeSource,
  resolveDestination,
  type DestinationRequest,
  type SiteRedirectView,
} from "../shared/site-redirects.js";
import { findSite } from "../shared/sites.js";

const UPDATABLE_FIELDS = ["source", "capture_wildcard", "draft", "permanent", "destination"] as const;

export interface UpdateSiteRedirectInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteRedirectId: string;
  /** Field paths, snake_case or camelCase; none changes nothing. */
  updateMask: string[] | undefined;
  source: string;
  captureWildcard: boolean;
  draft: boolean;
  permanent: boolean;
  destination: DestinationRequest | undefined;
}

/**
 * Changes what the mask names of a redirect (site admins only): its source (free in its
 * mode), live or draft (false makes a draft live, refused while the source has a live one), its
 * status code, wildcard capture or destination. Records `site_redirect.updated` with what changed.
 */
export async function updateSiteRedirect(em: EntityManager, input: UpdateSiteRedirectInput, deps: UseCaseDeps): Promise<SiteRedirectView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const source = fields.has("source") ? validateSource(input.source) : undefined;
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const redirect = await findSiteRedirect(tx, site, input.siteRedirectId, { lock: true });
    const draft = fields.has("draft") ? input.draft : redirect.draft;
    if (source !== undefined || draft !== redirect.draft) await requireFreeSource(tx, site, source ?? redirect.source, draft, redirect.id);
    const destination = fields.has("destination")
      ? await resolveDestination(
          tx,
          deps,
          access,
          site,
          input.destination ?? { kind: "", siteSectionId: "", siteSpaceId: "", pageId: "", url: "", spaceId: "", path: "" },
        )
      : undefined;
    changeRedirect(
      tx,
      site,
      redirect,
      {
        source,
        draft,
        permanent: fields.has("permanent") ? input.permanent : undefined,
        captureWildcard: fields.has("capture_wildcard") ? input.captureWildcard : undefined,
        destination,
      },
      { actor: access.caller, now: deps.clock() },
    );
    return { redirect };
  });
}
