import { testClient, createMember, createOrganization, type TestOrganization, errorCode, failure, waitForEvents } from "@imprint/runtime/testing";
import type { Caller } from "@imprint/proto/common/v1";
import { TranslationSettingsServiceService, type UpdateTranslationSettingsRequest } from "@imprint/proto/content/v1/translations";
import type { PromiseClient } from "@imprint/runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { normalizeLanguageTag } from "../src/translations/index.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

type TranslationsClient = PromiseClient<typeof TranslationSettingsServiceService>;

let harness: ContentHarness;
let translations: TranslationsClient;
let org: TestOrganization;

beforeAll(async () => {
  harness = await startContentHarness();
  translations = testClient(TranslationSettingsServiceService, harness.contentAddress);
});
afterAll(async () => {
  translations?.close();
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
});

const create = async (title: string, languages: string[], caller: Caller = org.owner.caller, organizationId = org.organizationId) =>
  (await translations.createTranslationSettings({ caller, organizationId, title, languages })).translationSettings!;
const get = async (translationSettingsId: string, caller: Caller = org.owner.caller, organizationId = org.organizationId) =>
  (await translations.getTranslationSettings({ caller, organizationId, translationSettingsId })).translationSettings!;
const update = async (fields: Partial<UpdateTranslationSettingsRequest> & { translationSettingsId: string }) =>
  (
    await translations.updateTranslationSettings({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      updateMask: [],
      title: "",
      languages: [],
      ...fields,
    })
  ).translationSettings!;
const remove = (translationSettingsId: string, caller: Caller = org.owner.caller, organizationId = org.organizationId) =>
  translations.deleteTranslationSettings({ caller, organizationId, translationSettingsId });

describe("translation settings CRUD", () => {
  it("creates settings with languages in canonical BCP 47 case, reads, lists, updates and deletes them", async () => {
    const since = new Date(Date.now() - 1_000);
    const created = await create("  Docs translations ", ["fr", "PT-br", "zh-hant-tw", "es-419", "i-klingon"]);
    expect(created).toMatchObject({
      organizationId: org.organizationId,
      title: "Docs translations",
      languages: ["fr", "pt-BR", "zh-Hant-TW", "es-419", "tlh"],
      permissions: { view: true, edit: true },
    });
    expect(created.createdAt).toEqual(created.updatedAt);
    expect(await get(created.id)).toEqual(created);

    const second = await create("Marketing", []);
    expect(second.languages).toEqual([]);
    const firstPage = await translations.listTranslationSettings({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      page: { pageToken: "", pageSize: 1 },
    });
    expect(firstPage.translationSettings.map((item) => item.id)).toEqual([created.id]);
    expect(firstPage.page!.totalCount).toBe(2);
    const secondPage = await translations.listTranslationSettings({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      page: { pageToken: firstPage.page!.nextPageToken, pageSize: 1 },
    });
    expect(secondPage.translationSettings.map((item) => item.id)).toEqual([second.id]);
    expect(secondPage.page!.nextPageToken).toBe("");

    harness.clock.advance(1_000);
    const renamed = await update({ translationSettingsId: created.id, updateMask: ["title"], title: "Product docs" });
    expect(renamed).toMatchObject({ title: "Product docs", languages: created.languages });
    expect(renamed.updatedAt!.getTime()).toBeGreaterThan(created.updatedAt!.getTime());
    const relanguaged = await update({ translationSettingsId: created.id, updateMask: ["languages"], languages: ["DE", "ja"] });
    expect(relanguaged).toMatchObject({ title: "Product docs", languages: ["de", "ja"] });

    await remove(created.id);
    expect(await errorCode(get(created.id))).toBe("not_found");
    expect(await errorCode(remove(created.id))).toBe("ok");
    expect(await errorCode(remove("not-an-id"))).toBe("ok");

    const events = await waitForEvents(
      "content",
      { since, organizationId: org.organizationId },
      {
        types: [
          "translation_settings.created",
          "translation_settings.created",
          "translation_settings.updated",
          "translation_settings.updated",
          "translation_settings.deleted",
        ],
      },
    );
    expect(events.find((event) => event.type === "translation_settings.created")).toMatchObject({
      actor: { userId: org.owner.userId },
      payload: { translationSettingsId: created.id, title: "Docs translations", languages: created.languages },
    });
    expect(events.filter((event) => event.type === "translation_settings.updated").map((event) => event.payload)).toEqual([
      { translationSettingsId: created.id, changedFields: ["title"], changes: { title: { from: "Docs translations", to: "Product docs" } } },
      { translationSettingsId: created.id, changedFields: ["languages"], changes: { languages: { from: created.languages, to: ["de", "ja"] } } },
    ]);
  });

  it("an update that changes nothing records no event and keeps updatedAt", async () => {
    const created = await create("Same", ["fr"]);
    harness.clock.advance(1_000);
    const same = await update({ translationSettingsId: created.id, updateMask: ["title", "languages"], title: "Same", languages: ["FR"] });
    expect(same.updatedAt).toEqual(created.updatedAt);
  });
});

describe("validation", () => {
  it("rejects a language that is not a BCP 47 tag, naming its index", async () => {
    expect(await failure(create("T", ["fr", "en_US"]))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^languages\[1\]: "en_US" is not a BCP 47 language tag/) as string,
    });
    expect(await failure(create("T", ["english"]))).toMatchObject({
      message: expect.stringMatching(/^languages\[0\]: "english" is not a BCP 47 language tag/) as string,
    });
    expect(await failure(create("T", ["fr", "de", ""]))).toMatchObject({
      message: expect.stringMatching(/^languages\[2\]: must be a BCP 47 language tag/) as string,
    });
    expect(await failure(create("T", ["x-private"]))).toMatchObject({ message: expect.stringMatching(/^languages\[0\]:/) as string });
    expect(await failure(create("T", ["de", "pt-BR", "PT-br"]))).toMatchObject({ message: 'languages[2]: "PT-br" repeats languages[1]' });
    expect(
      await failure(
        create(
          "T",
          Array.from({ length: 101 }, (_, i) => `x${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`),
        ),
      ),
    ).toMatchObject({
      message: "languages: must contain at most 100 items",
    });
    const created = await create("Valid", ["fr"]);
    expect(await failure(update({ translationSettingsId: created.id, updateMask: ["languages"], languages: ["fr", "fr-"] }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^languages\[1\]:/) as string,
    });
    expect((await get(created.id)).languages).toEqual(["fr"]);
  });

  it("rejects a missing or long title and an unknown update field", async () => {
    expect(await failure(create("   ", ["fr"]))).toMatchObject({ code: "invalid_argument", message: "title: is required" });
    expect(await failure(create("t".repeat(129), ["fr"]))).toMatchObject({ message: "title: must be at most 128 characters" });
    const created = await create("Valid", ["fr"]);
    expect(await failure(update({ translationSettingsId: created.id, updateMask: ["owner"] }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^update_mask: unknown field "owner"/) as string,
    });
  });

  it("normalises tags to RFC 5646 case", () => {
    expect(normalizeLanguageTag("EN-latn-gb-OXENDICT-u-CA-gregory-x-Twain")).toEqual({ tag: "en-Latn-GB-oxendict-u-ca-gregory-x-twain" });
    expect(normalizeLanguageTag("sr-CYRL")).toEqual({ tag: "sr-Cyrl" });
    expect(normalizeLanguageTag("fr ")).toMatchObject({ problem: expect.any(String) as string });
  });
});

describe("permissions", () => {
  it("create members manage settings; read members only view them; guests see none", async () => {
    const creator = await createMember(harness, org.organizationId, { role: "create" });
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    const guest = await createMember(harness, org.organizationId, { role: "guest" });
    const settings = await create("Team", ["fr"], creator.caller);
    expect(settings.permissions).toEqual({ view: true, edit: true });

    expect((await get(settings.id, reader.caller)).permissions).toEqual({ view: true, edit: false });
    expect(await failure(create("Mine", [], reader.caller))).toMatchObject({
      code: "permission_denied",
      message: 'You need the "createContent" permission in this organization',
    });
    expect(
      await errorCode(
        translations.updateTranslationSettings({
          caller: reader.caller,
          organizationId: org.organizationId,
          translationSettingsId: settings.id,
          updateMask: ["title"],
          title: "X",
          languages: [],
        }),
      ),
    ).toBe("permission_denied");
    expect(await errorCode(remove(settings.id, reader.caller))).toBe("permission_denied");

    const guestList = await translations.listTranslationSettings({ caller: guest.caller, organizationId: org.organizationId, page: undefined });
    expect(guestList.translationSettings).toEqual([]);
    expect(await errorCode(get(settings.id, guest.caller))).toBe("not_found");

    await remove(settings.id, creator.caller);
    expect(await errorCode(get(settings.id))).toBe("not_found");
  });

  it("another organization gets 404 on every operation, and an id is only found under its own organization", async () => {
    const other = await createOrganization(harness);
    const settings = await create("Private", ["fr"]);
    const outsider = other.owner.caller;
    const organizationId = org.organizationId;
    const notFound = { code: "not_found", message: "Organization not found" };
    expect(await failure(translations.listTranslationSettings({ caller: outsider, organizationId, page: undefined }))).toMatchObject(notFound);
    expect(await failure(create("Intruder", [], outsider))).toMatchObject(notFound);
    expect(await failure(get(settings.id, outsider))).toMatchObject(notFound);
    expect(
      await failure(
        translations.updateTranslationSettings({
          caller: outsider,
          organizationId,
          translationSettingsId: settings.id,
          updateMask: ["title"],
          title: "X",
          languages: [],
        }),
      ),
    ).toMatchObject(notFound);
    expect(await failure(remove(settings.id, outsider))).toMatchObject(notFound);

    // Through its own organization's path the other organization's owner still finds nothing.
    expect(await failure(get(settings.id, outsider, other.organizationId))).toMatchObject({ code: "not_found", message: "Translation settings not found" });
    expect(await errorCode(remove(settings.id, outsider, other.organizationId))).toBe("ok");
    expect((await get(settings.id)).title).toBe("Private");
  });
});
