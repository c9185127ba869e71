import { SiteView, type ScriptServiceService } from "@imprint/proto/integration/v1/scripts";
import type { EntityManager } from "@mikro-orm/postgresql";
import { type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getPublishedScript } from "../use-cases/scripts/get-published-script.js";
import { handleInstallationRequest } from "../use-cases/scripts/handle-installation-request.js";
import { handleIntegrationRequest } from "../use-cases/scripts/handle-integration-request.js";
import { listSiteScripts } from "../use-cases/scripts/list-site-scripts.js";
import { renderIntegrationUI } from "../use-cases/scripts/render-integration-ui.js";
import { reportPageFeedback } from "../use-cases/scripts/report-page-feedback.js";
import { reportSiteViews, type SiteViewReport } from "../use-cases/scripts/report-site-views.js";

export const SCRIPT_SERVICE_NAME = "imprint.integration.v1.ScriptService";

const headerPairs = (headers: Array<[string, string]>) => headers.map(([name, value]) => ({ name, value }));

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function scriptServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof ScriptServiceService> {
  return {
    renderIntegrationUi: async (request) => {
      const rendered = await renderIntegrationUI(
        em(),
        {
          caller: request.caller,
          name: request.name,
          componentId: request.componentId,
          propsJson: request.propsJson,
          stateJson: request.stateJson,
          contextJson: request.contextJson,
          actionJson: request.actionJson,
        },
        deps,
      );
      return { outputJson: JSON.stringify(rendered.output), cacheControl: rendered.cacheControl };
    },

    handleInstallationRequest: async (request) => {
      const answer = await handleInstallationRequest(
        em(),
        {
          name: request.name,
          installationId: request.installationId,
          method: request.method,
          path: request.path,
          headers: request.headers,
          body: request.body,
        },
        deps,
      );
      return { status: answer.status, headers: headerPairs(answer.headers), body: Buffer.from(answer.body) };
    },

    handleIntegrationRequest: async (request) => {
      const answer = await handleIntegrationRequest(
        em(),
        { name: request.name, method: request.method, path: request.path, headers: request.headers, body: request.body },
        deps,
      );
      return { status: answer.status, headers: headerPairs(answer.headers), body: Buffer.from(answer.body) };
    },

    getPublishedScript: async (request) => {
      const answer = await getPublishedScript(em(), { name: request.name, installationId: request.installationId, siteId: request.siteId }, deps);
      return { status: answer.status, headers: headerPairs(answer.headers), body: Buffer.from(answer.body) };
    },

    listSiteScripts: async (request) => ({
      scripts: await listSiteScripts(em(), { siteId: request.siteId, caller: request.caller, organizationId: request.organizationId }, deps),
    }),

    reportSiteViews: async (request) => ({
      events: await reportSiteViews(
        em(),
        {
          views: request.views.map(siteViewReport),
        },
        deps,
      ),
    }),

    reportPageFeedback: async (request) => ({
      events: await reportPageFeedback(em(), { view: siteViewReport(request.view ?? emptyView), rating: request.rating, comment: request.comment }, deps),
    }),
  };
}

/** A view as the use cases take it. */
function siteViewReport(view: SiteView): SiteViewReport {
  return {
    organizationId: view.organizationId,
    siteId: view.siteId,
    siteSpaceId: view.siteSpaceId,
    spaceId: view.spaceId,
    pageId: view.pageId,
    url: view.url,
    referrer: view.referrer,
    anonymousId: view.anonymousId,
    userAgent: view.userAgent,
    language: view.language,
  };
}

/** What a request without its view names: no site (NOT_FOUND). */
const emptyView = SiteView.create();
