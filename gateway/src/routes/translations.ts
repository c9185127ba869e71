import { z } from "zod";
import { toRestTranslationSettings, translationSettingsLocation } from "../mappers/translation.js";
import { pageQuerySchema, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import { toMaskedUpdate } from "../update-mask.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const settingsParams = z.object({ organizationId: pathId(), translationSettingsId: pathId() });

/**
 * Translation settings per interface.md: `title` and `languages` (BCP 47 tags). Their rules (title
 * 1 to 128 characters, at most 100 valid and distinct tags of at most 64 characters) are the
 * content service's; here only the shapes.
 */
const languagesShape = z.array(z.string());
export const createTranslationSettingsBody = z.object({ title: z.string(), languages: languagesShape.optional() });
export const updateTranslationSettingsBody = z
  .object({ title: z.string().optional(), languages: languagesShape.optional() })
  .refine((body) => body.title !== undefined || body.languages !== undefined, { message: "must contain title or languages" });

export function translationRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const translations = upstreams.content.translations;
  return [
    // listTranslations
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/translations",
      params: organizationParams,
      query: pageQuerySchema,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await translations.listTranslationSettings({
          caller: principal.caller,
          organizationId: params.organizationId,
          page: toPageRequest(query, cursors),
        });
        return ok(
          toPagedList(
            response.translationSettings.map((settings) => toRestTranslationSettings(settings, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // createTranslation
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/translations",
      params: organizationParams,
      body: createTranslationSettingsBody,
      handler: async ({ params, body, principal }) => {
        const response = await translations.createTranslationSettings({
          caller: principal.caller,
          organizationId: params.organizationId,
          title: body.title,
          languages: body.languages ?? [],
        });
        const settings = toRestTranslationSettings(response.translationSettings, urls);
        return created(settings, translationSettingsLocation(urls, params.organizationId, settings.id));
      },
    }),

    // getTranslation
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/translations/:translationSettingsId",
      params: settingsParams,
      handler: async ({ params, principal }) => {
        const response = await translations.getTranslationSettings({ caller: principal.caller, ...params });
        return ok(toRestTranslationSettings(response.translationSettings, urls));
      },
    }),

    // updateTranslation: the fields sent change (`languages` replaces the list).
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/translations/:translationSettingsId",
      params: settingsParams,
      body: updateTranslationSettingsBody,
      handler: async ({ params, body, principal }) => {
        const response = await translations.updateTranslationSettings({
          caller: principal.caller,
          ...params,
          ...toMaskedUpdate(
            body,
            { title: "", languages: [] as string[] },
            { title: ["title", (title) => ({ title })], languages: ["languages", (languages) => ({ languages })] },
          ),
        });
        return ok(toRestTranslationSettings(response.translationSettings, urls));
      },
    }),

    // deleteTranslation: 204 whether or not they existed.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/translations/:translationSettingsId",
      params: settingsParams,
      handler: async ({ params, principal }) => {
        await translations.deleteTranslationSettings({ caller: principal.caller, ...params });
        return noContent();
      },
    }),
  ];
}
