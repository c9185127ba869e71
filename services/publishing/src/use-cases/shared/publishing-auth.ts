import type { Site } from "../../domain/site.js";

/** A site's visitor authentication as the API shows it (to site admins). */
export interface PublishingAuthView {
  backend: "custom";
  privateKey: string;
  fallbackUrl: string | null;
  logoutUrl: string | null;
}

export function publishingAuthView(site: Site): PublishingAuthView {
  return { backend: "custom", privateKey: site.visitorAuthKey, fallbackUrl: site.visitorAuthFallbackUrl ?? null, logoutUrl: site.visitorAuthLogoutUrl ?? null };
}
