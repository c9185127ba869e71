import { defaultCustomization, effectiveCustomization, type Customization } from "../../domain/customization/customization.js";
import type { Site } from "../../domain/site.js";
import type { SiteSpace } from "../../domain/site-space.js";

export interface CustomizationView {
  customization: Customization;
  /** When it was last set; null while it is the default (GitBook omits `updatedAt` then). */
  updatedAt: Date | null;
}

/** A site's customization: as an admin set it, else the default. */
export function siteCustomization(site: Site): CustomizationView {
  return site.customization
    ? { customization: JSON.parse(site.customization) as Customization, updatedAt: site.customizationUpdatedAt ?? null }
    : { customization: defaultCustomization(), updatedAt: null };
}

/** A site-space's override of its site's customization; null for none. */
export function siteSpaceOverride(siteSpace: SiteSpace): Customization | null {
  return siteSpace.customizationOverride ? (JSON.parse(siteSpace.customizationOverride) as Customization) : null;
}

/** What a site-space shows: its site's customization with its override applied; the later of their times. */
export function siteSpaceCustomization(site: Site, siteSpace: SiteSpace): CustomizationView {
  const base = siteCustomization(site);
  const override = siteSpaceOverride(siteSpace);
  if (!override) return base;
  const times = [base.updatedAt, siteSpace.customizationUpdatedAt ?? null].filter((time): time is Date => time !== null);
  return {
    customization: effectiveCustomization(base.customization, override),
    updatedAt: times.length > 0 ? new Date(Math.max(...times.map((time) => time.getTime()))) : null,
  };
}
